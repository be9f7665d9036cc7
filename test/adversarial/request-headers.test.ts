/**
 * Every request header the stub server, the gateway or their shared contract parse themselves — `Prefer`,
 * `Authorization`, `Accept-Encoding`, `Content-Type`, `Content-Encoding`, `x-request-id`, `Connection` and
 * `Origin` — with random and adversarial values (long runs of quotes, backslashes, commas, semicolons, `=`), sent
 * to the real stub and through the real gateway: each answer is a success or a 4xx error body, never a 5xx (but
 * the one a `Prefer: code=5xx` asks for), never a hang, and a normal request works afterwards. The parsers' own
 * time bounds are unit properties beside their modules (`*.fuzz.test.ts`, faults.test.ts).
 */
import { type Answer, jsonRequest, type RawRequest, send } from "@compute-api/conformance/testing";
import { maxPreferLength, parsePrefer } from "@compute-api/stub-server/testing";
import { errorBodyProblems } from "@compute-api/test-support";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { expectHealthy, expectNoProblems } from "./support/checks.js";
import { headerValue } from "./support/header-fuzz.js";
import { machinePath } from "./support/hostile.js";
import { checkProperty, count, flushCounts } from "./support/property.js";
import { startTarget, type Target, type TargetName } from "./support/targets.js";

const file = "test/adversarial/request-headers.test.ts";
const defaultRuns = 12;
/** Values stay under Node's 16 KiB limit for a header section, with the gateway's own headers added. */
const maxLength = 4096;
const search = "/v1/resources/search?query=alpha";

/** A Prefer that asks for no more than a short delay: the property tests answers, not patience. */
const quick = (value: string) =>
  value.length > maxPreferLength ||
  !/^\d+$/.test(parsePrefer(value).get("latency") ?? "") ||
  Number(parsePrefer(value).get("latency")) <= 20;

/** Each header: the words its parser looks for, and the request it rides on (as alice, whose key is `key`). */
const headers: {
  name: string;
  words: string[];
  request: (key: string, value: string) => RawRequest;
  filter?: (value: string) => boolean;
}[] = [
  {
    name: "prefer",
    words: ["code=", "code=503", "latency=", "respond-async"],
    request: (key, value) => withHeader(jsonRequest("GET", search, key), "prefer", value),
    filter: quick,
  },
  {
    name: "authorization",
    words: ["Bearer ", "bearer ", "Basic ", "cak_"],
    request: (key, value) => withHeader(jsonRequest("GET", search, key), "authorization", value),
  },
  {
    name: "accept-encoding",
    words: ["gzip", "br;q=", "deflate", "*;q=0", "identity"],
    request: (key, value) => withHeader(jsonRequest("GET", search, key), "accept-encoding", value),
  },
  {
    name: "content-type",
    words: ["application/json", "; charset=utf-8", "+json", "*/*"],
    request: (key, value) => withHeader(patch(key), "content-type", value),
  },
  {
    name: "content-encoding",
    words: ["gzip", "identity", "br", "deflate"],
    request: (key, value) => withHeader(patch(key), "content-encoding", value),
  },
  {
    name: "x-request-id",
    words: ["req-", "a.b:c"],
    request: (key, value) => withHeader(jsonRequest("GET", search, key), "x-request-id", value),
  },
  {
    name: "connection",
    words: ["close", "keep-alive", "authorization", "upgrade"],
    request: (key, value) => withHeader(jsonRequest("GET", search, key), "connection", value),
  },
  {
    name: "origin",
    words: ["http://", "localhost:5173", "null", "*"],
    request: (key, value) => withHeader(jsonRequest("GET", search, key), "origin", value),
  },
];

/** A PATCH of alice's machine that conforms but for the header under test. */
const patch = (key: string) => jsonRequest("PATCH", machinePath, key, { powerState: "REBOOTING" });

const withHeader = (request: RawRequest, name: string, value: string): RawRequest => ({
  ...request,
  headers: { ...request.headers, [name]: value },
});

/** Problems with the answer to a request whose header `name` was `value`: empty when it is a success or a 4xx error body. */
function problemsOf(name: string, value: string, answer: Answer): string[] {
  // A 5xx only where the stub was asked for it: Prefer's code, within its length limit.
  const asked = name === "prefer" && value.length <= maxPreferLength ? Number(parsePrefer(value).get("code")) : NaN;
  if (answer.status >= 500 && answer.status !== asked) return [`status ${answer.status}`];
  if (answer.status >= 400) return errorBodyProblems(answer, [answer.status]);
  if (answer.status !== 200) return [`status ${answer.status}`];
  if (name === "x-request-id" && answer.headers["x-request-id"] !== value && /^[\w.:-]{1,128}$/.test(value))
    return [`x-request-id ${String(answer.headers["x-request-id"])}`];
  return [];
}

describe.each<TargetName>(["stub", "gateway"])("request headers, %s", (targetName) => {
  let target: Target;
  beforeAll(async () => {
    target = await startTarget(targetName);
  });
  afterEach(async () => {
    await expectHealthy(target.url, target.keys.alice);
  });
  afterAll(async () => {
    flushCounts();
    await target?.close();
  });

  it.each(headers)(
    "$name: any value gets a success or a 4xx error body, never a 5xx",
    async ({ name, words, request, filter }) => {
      const values = filter ? headerValue(words, maxLength).filter(filter) : headerValue(words, maxLength);
      await checkProperty(
        file,
        values,
        async (value) => {
          const answer = await send(target.url, request(target.keys.alice, value));
          count(`${targetName} header ${name} ${answer.status}`);
          expectNoProblems(
            problemsOf(name, value, answer),
            answer,
            `${name}: ${JSON.stringify(value.slice(0, 200))} (${value.length} characters)`,
          );
        },
        defaultRuns,
      );
    },
  );

  it("a 12 KiB Prefer of escaped quotes is answered 400 naming the header and its length limit, unparsed", async () => {
    const answer = await send(
      target.url,
      withHeader(jsonRequest("GET", search, target.keys.alice), "prefer", `code=503, x="${'\\"'.repeat(6 * 1024)}`),
    );
    expectNoProblems(errorBodyProblems(answer, [400]), answer, "12 KiB Prefer");
    expect(answer.text).toContain("header.prefer");
    // Refused for its length before any parse (the parse's own growth is faults.test.ts's).
    expect(answer.text).toContain(String(maxPreferLength));
  });

  it("header values are drawn long and hostile, not only short", () => {
    const sample = fc.sample(headerValue(["code="], maxLength), { numRuns: 200, seed: 1 });
    expect(sample.some((v) => v.length > 1024)).toBe(true);
    expect(sample.some((v) => /(["\\,;=])\1{20}/.test(v))).toBe(true);
  });
});
