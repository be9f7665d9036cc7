/** Valid upstream responses pass through every mode unchanged: status, end-to-end headers and body bytes. */
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { type RawResponse, send } from "./support/client.js";
import { example, searchResponse } from "./support/fixtures.js";
import { auth, gatewaysByMode, modes, type Received } from "./support/servers.js";

const servers = gatewaysByMode();
const { gateways } = servers;

const machine = "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01";
const jsonHeaders = { ...auth, "content-type": "application/json" };

/** Writes a body in pieces, with headers an origin might send, including hop-by-hop ones the gateway must drop. */
function answerWith(status: number, text: string, chunked: boolean) {
  return (_req: Received, res: ServerResponse) => {
    const headers: [string, string][] = [
      ["Content-Type", "application/json; charset=utf-8"],
      ["Cache-Control", "no-store"],
      ["ETag", '"v1-abc"'],
      ["Set-Cookie", "a=1; HttpOnly"],
      ["Set-Cookie", "b=2; Secure"],
      ["X-Upstream-Trace", "t-1"],
      ["Connection", "keep-alive, X-Hop"],
      ["X-Hop", "drop me"],
    ];
    res.statusCode = status;
    for (const [name, value] of headers) res.appendHeader(name, value);
    if (!chunked) res.setHeader("Content-Length", Buffer.byteLength(text));
    const middle = Math.floor(text.length / 2);
    res.write(text.slice(0, middle));
    setImmediate(() => res.end(text.slice(middle)));
  };
}

/** Headers that describe the message end to end (everything but framing, the date and the gateway's request id). */
function endToEnd(res: RawResponse): [string, string][] {
  const skip = new Set([
    "date",
    "connection",
    "keep-alive",
    "transfer-encoding",
    "content-length",
    "x-request-id",
    "x-hop",
  ]);
  const pairs: [string, string][] = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    const name = res.rawHeaders[i]!.toLowerCase();
    if (!skip.has(name)) pairs.push([name, res.rawHeaders[i + 1]!]);
  }
  return pairs.sort();
}

// Bodies formatted the way no JSON.stringify would: spacing, key order, escapes, an extra field.
const cases: [string, { method: string; path: string; body?: string; status: number; text: string }][] = [
  [
    "an updated machine",
    {
      method: "PATCH",
      path: machine,
      body: '{"powerState":"POWERING_ON"}',
      status: 200,
      text: JSON.stringify(example("UpdateClusterMachineResponse"), null, 3).replace(
        '"cpuModel"',
        '"futureField": "\\u00e9\\/x",\n   "cpuModel"',
      ),
    },
  ],
  [
    "a created key",
    {
      method: "POST",
      path: "/v1/api-keys",
      body: '{"apikeyId":"ci-deploy-key"}',
      status: 200,
      text: `  ${JSON.stringify(example("CreateApiKeyResponse"))}\n`,
    },
  ],
  [
    "100 search results",
    { method: "GET", path: "/v1/resources/search?query=train", status: 200, text: JSON.stringify(searchResponse(100)) },
  ],
  [
    "no search results",
    { method: "GET", path: "/v1/resources/search?query=zzz", status: 200, text: '{ "results" : [ ] }' },
  ],
  [
    "a documented 404",
    {
      method: "PATCH",
      path: machine,
      body: '{"state":"ACTIVE"}',
      status: 404,
      text: JSON.stringify(example("NotFoundError")),
    },
  ],
  [
    "a documented 503",
    {
      method: "GET",
      path: "/v1/resources/search?query=a",
      status: 503,
      text: JSON.stringify(example("ServiceUnavailableError")),
    },
  ],
];

describe.each(cases)("%s", (_name, { method, path, body, status, text }) => {
  it.each(modes.flatMap((mode) => [true, false].map((chunked) => [mode, chunked] as const)))(
    "%s (chunked: %s): status, end-to-end headers and body bytes as going direct",
    async (mode, chunked) => {
      servers.upstream.answer = answerWith(status, text, chunked);
      const request = { method, path, headers: body ? jsonHeaders : auth, ...(body ? { body } : {}) };
      const direct = await send(servers.upstream.url, request);
      const proxied = await send(gateways.get(mode)!.url, request);
      expect(proxied.status).toBe(direct.status);
      expect(proxied.body.equals(direct.body)).toBe(true);
      expect(endToEnd(proxied)).toEqual(endToEnd(direct));
      expect(proxied.headers["content-length"]).toBe(String(direct.body.length));
      expect(proxied.headers["x-hop"]).toBeUndefined();
      expect(proxied.headers["x-contract-violations"]).toBeUndefined();
    },
  );
});
