/**
 * A backend that compresses, as most production ones do (nginx or a framework with compression on): it answers
 * with the coding the caller's Accept-Encoding allows. The gateway offers it only what it can decode, decodes to
 * check, and sends the caller the backend's own compressed bytes, in every mode; a compression bomb, an unknown
 * coding and a truncated stream are answered as the mode says, never with memory past the limit.
 */
import type { ServerResponse } from "node:http";
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import Negotiator from "negotiator";
import { beforeEach, describe, expect, it } from "vitest";
import { send } from "./support/client.js";
import { example, searchResponse } from "./support/fixtures.js";
import { auth, gatewaysByMode, modes, type Received } from "./support/servers.js";

const maxResponseBytes = 64 * 1024;
const encoders: Record<string, (text: string) => Buffer> = {
  gzip: (t) => gzipSync(t),
  deflate: (t) => deflateSync(t),
  br: (t) => brotliCompressSync(t),
};
const valid = JSON.stringify(searchResponse(20));
const search = "/v1/resources/search?query=a";

const servers = gatewaysByMode({ maxResponseBytes });
const { gateways } = servers;
beforeEach(() => {
  servers.upstream.received.length = 0;
});

/** Answers as a compressing server does: the body in the best coding the request accepts (or as given), with Vary. */
function compressing(text: string, coding?: string, bytes?: Buffer) {
  return (req: Received, res: ServerResponse) => {
    const chosen =
      coding ?? new Negotiator({ headers: req.headers }).encoding(["br", "gzip", "deflate", "identity"]) ?? "identity";
    const body = bytes ?? (chosen === "identity" ? Buffer.from(text) : encoders[chosen]!(text));
    res.writeHead(200, {
      "content-type": "application/json",
      vary: "Accept-Encoding",
      ...(chosen === "identity" ? {} : { "content-encoding": chosen }),
      "content-length": body.length,
    });
    res.end(body);
  };
}

const fields = (body: Buffer) =>
  (
    (JSON.parse(body.toString()) as { details?: { fieldViolations?: { field: string; reason: string }[] }[] })
      .details ?? []
  )
    .flatMap((d) => d.fieldViolations ?? [])
    .map((v) => [v.field, v.reason]);

describe.each(modes)("%s", (mode) => {
  it.each(Object.keys(encoders))(
    "passes a valid %s body on as the backend's own bytes, with Content-Encoding and Vary",
    async (coding) => {
      servers.upstream.answer = compressing(valid);
      const request = { path: search, headers: { ...auth, "accept-encoding": coding } };
      const direct = await send(servers.upstream.url, request);
      const res = await send(gateways.get(mode)!.url, request);
      expect(res.status).toBe(200);
      expect(res.headers["content-encoding"]).toBe(coding);
      expect(res.headers.vary).toBe("Accept-Encoding");
      expect(res.body.equals(direct.body)).toBe(true);
      expect(res.headers["x-contract-violations"]).toBeUndefined();
    },
  );

  it("reads a raw deflate stream too, as browsers do", async () => {
    servers.upstream.answer = compressing(valid, "deflate", deflateRawSync(valid));
    const res = await send(gateways.get(mode)!.url, {
      path: search,
      headers: { ...auth, "accept-encoding": "deflate" },
    });
    expect([res.status, res.headers["x-contract-violations"]]).toEqual([200, undefined]);
  });
});

describe("what the backend is offered", () => {
  it.each([
    ["the caller's codings the gateway decodes, not zstd", "zstd, gzip, deflate, br", "gzip, deflate, br"],
    ["in the caller's order of preference", "gzip;q=0.5, br", "br, gzip"],
    ["none refused with q=0", "gzip;q=0, br", "br"],
    ["all three for *", "*", "gzip, deflate, br"],
    ["identity when the caller accepts only what it cannot decode", "zstd", "identity"],
    ["identity when the caller says nothing", undefined, "identity"],
  ])("is %s", async (_name, given, want) => {
    servers.upstream.answer = compressing(valid);
    await send(gateways.get("enforce")!.url, {
      path: search,
      headers: { ...auth, ...(given === undefined ? {} : { "accept-encoding": given }) },
    });
    expect(servers.upstream.received[0]?.headers["accept-encoding"]).toBe(want);
  });

  it("is the caller's own Accept-Encoding when responses are not checked (off)", async () => {
    servers.upstream.answer = compressing(valid);
    await send(gateways.get("off")!.url, { path: search, headers: { ...auth, "accept-encoding": "zstd, gzip" } });
    expect(servers.upstream.received[0]?.headers["accept-encoding"]).toBe("zstd, gzip");
  });
});

describe("a compressed body that breaks the spec", () => {
  const broken = JSON.stringify({
    results: [{ resourceName: "x", resourceType: "cluster", score: 1, cluster: { projectId: "p" } }],
  });

  it.each(Object.keys(encoders))(
    "(%s) is refused by enforce, naming the fields, and passed by report with the count",
    async (coding) => {
      servers.upstream.answer = compressing(broken, coding);
      const enforced = await send(gateways.get("enforce")!.url, {
        path: search,
        headers: { ...auth, "accept-encoding": coding },
      });
      expect(enforced.status).toBe(502);
      expect(fields(enforced.body)).toContainEqual(["response.body.results[0].cluster.id", "required"]);
      const reported = await send(gateways.get("report")!.url, {
        path: search,
        headers: { ...auth, "accept-encoding": coding },
      });
      expect([
        reported.status,
        reported.headers["content-encoding"],
        reported.headers["x-contract-violations"],
      ]).toEqual([200, coding, "4"]);
      expect(reported.body.equals(encoders[coding]!(broken))).toBe(true);
    },
  );
});

describe("a body that does not decode", () => {
  it.each([
    ["an unknown coding", "compress", Buffer.from(valid), [["response.header.content-encoding", "content-encoding"]]],
    [
      "zstd, which Node 20 cannot decode",
      "zstd",
      Buffer.from(valid),
      [["response.header.content-encoding", "content-encoding"]],
    ],
    ["a truncated gzip stream", "gzip", gzipSync(valid).subarray(0, 200), [["response.body", "content-encoding"]]],
    ["bytes that are not gzip at all", "gzip", Buffer.from(valid), [["response.body", "content-encoding"]]],
  ])("%s: 502 in enforce naming it, passed as received in report and off", async (_name, coding, bytes, want) => {
    servers.upstream.answer = compressing(valid, coding, bytes);
    const enforced = await send(gateways.get("enforce")!.url, {
      path: search,
      headers: { ...auth, "accept-encoding": "gzip" },
    });
    expect(enforced.status).toBe(502);
    expect(fields(enforced.body)).toEqual(want);
    for (const mode of ["report", "off"] as const) {
      const res = await send(gateways.get(mode)!.url, {
        path: search,
        headers: { ...auth, "accept-encoding": "gzip" },
      });
      expect(res.status).toBe(200);
      expect(res.body.equals(bytes)).toBe(true);
      expect(res.headers["x-contract-violations"]).toBe(mode === "report" ? "1" : undefined);
    }
  });
});

describe("a compression bomb", () => {
  // 32 MiB of JSON white space after a valid start: about 32 KiB of gzip, 500 times the response limit decoded.
  const bomb = gzipSync(
    Buffer.concat([Buffer.from('{"results":['), Buffer.alloc(32 * 1024 * 1024, 0x20), Buffer.from("]}")]),
    { level: 9 },
  );

  it.each(["enforce", "report"] as const)(
    "%s: 502 UPSTREAM_RESPONSE_TOO_LARGE after at most the limit of decoded bytes",
    async (mode) => {
      expect(bomb.length).toBeLessThan(maxResponseBytes);
      servers.upstream.answer = compressing("", "gzip", bomb);
      const heapBefore = process.memoryUsage().arrayBuffers;
      const res = await send(gateways.get(mode)!.url, {
        path: search,
        headers: { ...auth, "accept-encoding": "gzip" },
      });
      expect(res.status).toBe(502);
      expect(JSON.parse(res.body.toString())).toMatchObject({
        code: 502,
        details: [{ reason: "UPSTREAM_RESPONSE_TOO_LARGE" }],
      });
      // Never the 32 MiB it would decode to: what is held after the answer is a few times the limit at most.
      expect(process.memoryUsage().arrayBuffers - heapBefore).toBeLessThan(8 * maxResponseBytes);
    },
  );

  it("off: passed as received, its compressed size within the limit", async () => {
    servers.upstream.answer = compressing("", "gzip", bomb);
    const res = await send(gateways.get("off")!.url, { path: search, headers: { ...auth, "accept-encoding": "gzip" } });
    expect(res.status).toBe(200);
    expect(res.body.equals(bomb)).toBe(true);
  });

  it("a body that decodes to exactly the limit still passes", async () => {
    const text = JSON.stringify(example("SearchResourcesResponse"));
    const padded = `${text.slice(0, -1) + " ".repeat(maxResponseBytes - text.length)}}`;
    expect(padded.length).toBe(maxResponseBytes);
    servers.upstream.answer = compressing(padded, "gzip");
    const res = await send(gateways.get("enforce")!.url, {
      path: search,
      headers: { ...auth, "accept-encoding": "gzip" },
    });
    expect(res.status).toBe(200);
  });
});
