import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { toApiError } from "@compute-api/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonBodyReader } from "../src/json-body.js";

/** A node:http server that answers with what the reader read, or with the error body it was refused with. */
const read = jsonBodyReader({ maxBodyBytes: 64 });
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  read(req, res).then(
    ({ value, bytes }) => res.end(JSON.stringify({ value, bytes: bytes?.length })),
    (error: unknown) => {
      const apiError = toApiError(error);
      res.statusCode = apiError.status;
      res.end(JSON.stringify(apiError.toBody()));
    },
  );
});
let base = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe("jsonBodyReader", () => {
  it.each<
    [
      string,
      {
        given: { headers: Record<string, string>; body?: Uint8Array | string };
        want: { status: number; body: unknown };
      },
    ]
  >([
    [
      "a JSON body, with the bytes it was parsed from",
      {
        given: { headers: { "content-type": "application/json" }, body: '{"a":1}' },
        want: { status: 200, body: { value: { a: 1 }, bytes: 7 } },
      },
    ],
    [
      "a gzip body, inflated",
      {
        given: {
          headers: { "content-type": "application/json", "content-encoding": "gzip" },
          body: new Uint8Array(gzipSync('{"a":2}')),
        },
        want: { status: 200, body: { value: { a: 2 }, bytes: 7 } },
      },
    ],
    ["no body", { given: { headers: {} }, want: { status: 200, body: {} } }],
    [
      "malformed JSON, without echoing it",
      {
        given: { headers: { "content-type": "application/json" }, body: '{"key":"cak_secret"' },
        want: { status: 400, body: expect.not.stringContaining("cak_secret") },
      },
    ],
    [
      "a body over the limit",
      {
        given: { headers: { "content-type": "application/json" }, body: `"${"x".repeat(100)}"` },
        want: { status: 413, body: { code: 413, message: "request body is larger than the limit" } },
      },
    ],
    [
      "a charset other than UTF-8",
      {
        given: { headers: { "content-type": "application/json; charset=latin1" }, body: "{}" },
        want: {
          status: 415,
          body: { code: 415, message: "unsupported body encoding or charset; send UTF-8 application/json" },
        },
      },
    ],
  ])("%s", async (_name, { given, want }) => {
    const res = await fetch(base, {
      method: "POST",
      headers: given.headers,
      ...(given.body === undefined ? {} : { body: given.body as string }),
    });
    expect(res.status).toBe(want.status);
    const text = await res.text();
    if (typeof want.body === "object" && want.body !== null && !("asymmetricMatch" in want.body))
      expect(JSON.parse(text)).toEqual(want.body);
    else expect(text).toEqual(want.body);
  });
});
