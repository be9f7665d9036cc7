/**
 * The benchmark's upstream: node:http answering each operation with a canned valid body, as fast as it can; a
 * search body gzip-compressed (once, at start) when the request accepts gzip, as a compressing backend does.
 */
import { createServer } from "node:http";
import { gzipSync } from "node:zlib";
import { example, searchResponse } from "../packages/gateway/test/support/fixtures.js";

const bodies = {
  machine: Buffer.from(JSON.stringify(example("UpdateClusterMachineResponse"))),
  key: Buffer.from(JSON.stringify(example("CreateApiKeyResponse"))),
  search: new Map([10, 100].map((n) => [`r${n}`, Buffer.from(JSON.stringify(searchResponse(n)))])),
};
const gzipped = new Map([...bodies.search].map(([query, body]) => [query, gzipSync(body)]));

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const url = req.url ?? "";
    const query = url.startsWith("/v1/resources/search")
      ? (new URL(url, "http://x").searchParams.get("query") ?? "r10")
      : undefined;
    const gzip = query !== undefined && /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
    const body =
      query !== undefined
        ? ((gzip ? gzipped : bodies.search).get(query) ?? bodies.search.get("r10"))
        : url.startsWith("/v1/api-keys")
          ? bodies.key
          : bodies.machine;
    res.writeHead(200, {
      "content-type": "application/json",
      "content-length": body!.length,
      ...(gzip ? { "content-encoding": "gzip", vary: "Accept-Encoding" } : {}),
    });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => console.error(`ready ${(server.address() as { port: number }).port}`));
