/** What the container suites share: the images' tags, a client with connections of its own, the bounds. */
import type { BuiltImage } from "@compute-api/test-support/podman";
import { Agent, type Dispatcher, request } from "undici";

/** How long a suite's beforeAll may take: the images' build, cold (the base image, npm ci, the compile) or cached. */
export const buildBound = 30 * 60_000;

/** The tag of the image built for `target`. */
export function tagOf(images: readonly BuiltImage[], target: BuiltImage["target"]): string {
  const image = images.find((built) => built.target === target);
  if (!image) throw new Error(`no ${target} image among ${images.map((built) => built.tag).join(", ")}`);
  return image.tag;
}

/** An HTTP answer: status, headers and the body parsed as JSON (or as text when it is not JSON). */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * An HTTP client with connections of its own: close() ends them, so that no idle connection of the suite's keeps a
 * draining container open for its grace period.
 */
export function httpClient(): {
  send(
    url: string,
    options?: { method?: Dispatcher.HttpMethod; headers?: Record<string, string>; body?: unknown },
  ): Promise<Answer>;
  close(): Promise<void>;
} {
  const agent = new Agent();
  return {
    async send(url, { method = "GET", headers = {}, body } = {}) {
      const response = await request(url, {
        method,
        dispatcher: agent,
        headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        headersTimeout: 20_000,
        bodyTimeout: 20_000,
      });
      const text = await response.body.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: kept as text
      }
      return { status: response.statusCode, headers: response.headers, body: parsed };
    },
    // Safe to call twice: undici rejects a second close.
    close: () => (agent.closed || agent.destroyed ? Promise.resolve() : agent.close()),
  };
}
