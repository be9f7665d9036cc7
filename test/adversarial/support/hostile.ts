/**
 * Hostile requests, written byte for byte: HTTP with hostile parts (bodies, content types, paths, headers), and
 * bytes that are not HTTP/1.1 at all, each with the statuses it may get. Shared by the hostile-input suite and
 * the differential test of stub and gateway.
 */
import type { RawRequest } from "@compute-api/conformance/testing";

/** A machine of alice's that every hostile PATCH aims at. */
export const machinePath = "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01";

/** A request as alice, with a JSON content type unless `headers` says otherwise. */
export const as = (
  key: string,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
): RawRequest => ({
  method,
  path,
  headers: {
    authorization: `Bearer ${key}`,
    ...(body === undefined ? {} : { "content-type": "application/json" }),
    ...headers,
  },
  ...(body === undefined ? {} : { body }),
});

/** The request with a body framed by Content-Length (node:http sends a GET's body unframed, as the start of a next request). */
export const withLength = (r: RawRequest, body: string): RawRequest => ({
  ...r,
  headers: { ...r.headers, "content-length": String(Buffer.byteLength(body)) },
  body,
});

const nested = (depth: number, open: string, close: string, inner: string) =>
  open.repeat(depth) + inner + close.repeat(depth);

/** Hostile requests that are still HTTP, each with the statuses it may get. */
export const cases: [string, (key: string) => RawRequest, number[]][] = [
  ["truncated JSON", (k) => as(k, "POST", "/v1/api-keys", '{"apikeyId":"ab'), [400]],
  [
    "a JSON body sent as text/plain",
    (k) => as(k, "POST", "/v1/api-keys", '{"apikeyId":"abcd"}', { "content-type": "text/plain" }),
    [415],
  ],
  [
    "a JSON body sent as a form",
    (k) => as(k, "PATCH", machinePath, '{"state":"ACTIVE"}', { "content-type": "application/x-www-form-urlencoded" }),
    [415],
  ],
  [
    "a JSON body sent as multipart",
    (k) =>
      as(k, "POST", "/v1/api-keys", "--b\r\n\r\nx\r\n--b--", { "content-type": "multipart/form-data; boundary=b" }),
    [415],
  ],
  [
    "a JSON body without a content type",
    (k) => ({ ...as(k, "POST", "/v1/api-keys"), body: '{"apikeyId":"abcd"}' }),
    [415],
  ],
  ["no body at all", (k) => as(k, "PATCH", machinePath), [415]],
  ["an empty JSON body", (k) => as(k, "PATCH", machinePath, ""), [400]],
  ["JSON null", (k) => as(k, "PATCH", machinePath, "null"), [400]],
  [
    "JSON in a charset other than UTF-8",
    (k) => as(k, "POST", "/v1/api-keys", '{"apikeyId":"abcd"}', { "content-type": "application/json; charset=latin1" }),
    [415],
  ],
  [
    "a gzip body that is not gzip",
    (k) => as(k, "POST", "/v1/api-keys", "not gzip", { "content-encoding": "gzip" }),
    [400],
  ],
  ["an unknown content encoding", (k) => as(k, "POST", "/v1/api-keys", "x", { "content-encoding": "compress" }), [415]],
  [
    "a body over 1 MiB",
    (k) => as(k, "POST", "/v1/api-keys", JSON.stringify({ apikeyId: "a".repeat(1024 * 1024) })),
    [413],
  ],
  [
    "a body over 1 MiB, chunked (no Content-Length)",
    (k) => ({
      ...as(k, "PATCH", machinePath, undefined, { "content-type": "application/json", "transfer-encoding": "chunked" }),
      body: `{"volumeIds":[${'"v",'.repeat(300_000)}"v"]}`,
    }),
    [413],
  ],
  [
    "arrays nested 100,000 deep",
    (k) => as(k, "PATCH", machinePath, `{"volumeIds":${nested(100_000, "[", "]", "")}}`),
    [400],
  ],
  [
    "objects nested 50,000 deep",
    (k) => as(k, "POST", "/v1/api-keys", `{"apikeyId":"abcd","x":${nested(50_000, '{"a":', "}", "1")}}`),
    [400],
  ],
  [
    "a 20 kB header",
    (k) => as(k, "GET", "/v1/resources/search?query=a", undefined, { "x-padding": "a".repeat(20_000) }),
    [431],
  ],
  [
    "a 20 kB id in the URL",
    (k) => as(k, "PATCH", `/v1/projects/${"a".repeat(20_000)}/cluster-machines/cm-alpha-01`, '{"state":"ACTIVE"}'),
    [431],
  ],
  [
    "a 5,000-character id",
    (k) => as(k, "PATCH", `/v1/projects/proj-alpha/cluster-machines/${"a".repeat(5000)}`, '{"state":"ACTIVE"}'),
    [400],
  ],
  [
    "a `..` path segment",
    (k) => as(k, "PATCH", "/v1/projects/../cluster-machines/cm-alpha-01", '{"state":"ACTIVE"}'),
    [400],
  ],
  [
    "an encoded `..` path segment",
    (k) => as(k, "PATCH", "/v1/projects/%2E%2E/cluster-machines/cm-alpha-01", '{"state":"ACTIVE"}'),
    [400],
  ],
  ["`..` walking out of /v1", (k) => as(k, "GET", "/v1/../../etc/passwd"), [404]],
  [
    "an encoded slash in an id",
    (k) =>
      as(k, "PATCH", "/v1/projects/proj-alpha%2F..%2Fproj-gamma/cluster-machines/cm-alpha-01", '{"state":"ACTIVE"}'),
    [400],
  ],
  [
    "a NUL byte in an id",
    (k) => as(k, "PATCH", "/v1/projects/proj-alpha%00/cluster-machines/cm-alpha-01", '{"state":"ACTIVE"}'),
    [400],
  ],
  [
    "an id that is not percent-encoded UTF-8",
    (k) => as(k, "PATCH", "/v1/projects/proj-alpha%FF/cluster-machines/cm-alpha-01", '{"state":"ACTIVE"}'),
    [400],
  ],
  [
    "a truncated percent-escape in an id",
    (k) => as(k, "PATCH", "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01%E0%A4", '{"state":"ACTIVE"}'),
    [400],
  ],
  ["a duplicated query parameter", (k) => as(k, "GET", "/v1/resources/search?query=alpha&query=beta"), [400]],
  ["a query parameter in bracket notation", (k) => as(k, "GET", "/v1/resources/search?query[]=alpha"), [400]],
  ["a method the path does not have", (k) => as(k, "DELETE", machinePath), [405]],
  [
    "1,000 empty query pairs hiding a bad query and an undeclared name",
    (k) => as(k, "GET", `/v1/resources/search?query=ok${"&".repeat(1000)}&query=%01%02&evil=1`),
    [400],
  ],
  [
    "130,000 invalid volume ids",
    (k) => as(k, "PATCH", machinePath, JSON.stringify({ volumeIds: Array.from({ length: 130_000 }, () => "!") })),
    [400],
  ],
  [
    "100,000 unknown properties",
    (k) =>
      as(
        k,
        "PATCH",
        machinePath,
        JSON.stringify(Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [i.toString(36), 1]))),
      ),
    [400],
  ],
  [
    "a second request as the body of a GET",
    (k) =>
      withLength(
        as(k, "GET", "/v1/resources/search?query=a"),
        `GET /v1/resources/search?query=b HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${k}\r\n\r\n`,
      ),
    [400],
  ],
  [
    "a chunked JSON body on a GET",
    (k) => as(k, "GET", "/v1/resources/search?query=a", '{"query":"a"}', { "transfer-encoding": "chunked" }),
    [400],
  ],
  [
    "a non-ASCII Authorization header",
    () => ({
      method: "GET",
      path: "/v1/resources/search?query=a",
      headers: { authorization: Buffer.from("Bearer cl\u00e9", "latin1").toString("latin1") },
    }),
    [401],
  ],
];

/** Bytes that are not (valid) HTTP/1.1, each with the status Node's parser refuses them with. */
export const malformed: [string, (host: string, key: string) => string | Buffer, number][] = [
  ["a request line that is not HTTP", () => "HELLO\r\n\r\n", 400],
  ["an HTTP/2 preface", () => "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400],
  [
    "a header line without a colon",
    (host) => `GET /v1/resources/search?query=a HTTP/1.1\r\nHost: ${host}\r\nno colon here\r\n\r\n`,
    400,
  ],
  [
    "a raw 0xFF byte in the path",
    (host, key) =>
      Buffer.concat([
        Buffer.from("GET /v1/resources/search?query=a"),
        Buffer.from([0xff]),
        Buffer.from(` HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\n\r\n`),
      ]),
    400,
  ],
  [
    "malformed chunked encoding",
    (host, key) =>
      `POST /v1/api-keys HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n`,
    400,
  ],
  [
    "both Content-Length and Transfer-Encoding",
    (host, key) =>
      `POST /v1/api-keys HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    400,
  ],
  [
    "headers over 16 kB",
    (host) => `GET /v1/resources/search?query=a HTTP/1.1\r\nHost: ${host}\r\nX-Padding: ${"a".repeat(20_000)}\r\n\r\n`,
    431,
  ],
];
