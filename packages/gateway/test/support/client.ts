/** A node:http client for tests that need exact control of the headers and bytes sent and received. */
import { request } from "node:http";

/** A response as received. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  rawHeaders: string[];
  body: Buffer;
}

/** Sends one request on a fresh connection; headers and body go out exactly as given. */
export function send(
  base: string,
  options: { method?: string; path: string; headers?: Record<string, string | string[]>; body?: string | Buffer },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers };
    // node:http sends a GET or DELETE body unframed unless told its length.
    if (
      options.body !== undefined &&
      !Object.keys(headers).some((h) => /^(content-length|transfer-encoding)$/i.test(h))
    ) {
      headers["content-length"] = String(Buffer.byteLength(options.body));
    }
    const req = request(base + options.path, { method: options.method ?? "GET", headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body: Buffer.concat(chunks),
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(options.body);
  });
}
