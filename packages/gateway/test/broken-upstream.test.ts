/**
 * A deliberately broken upstream behind a gateway in each response-validation mode: every kind of
 * non-conforming response and every fault, with what each mode must answer.
 */
import type { ServerResponse } from "node:http";
import type { ResponseValidationMode } from "@compute-api/contract";
import { beforeAll, describe, expect, it } from "vitest";
import { auth, gatewaysByMode, json, modes, type Received } from "./support/servers.js";

const patch = {
  method: "PATCH",
  path: "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01",
  body: '{"powerState":"POWERING_ON"}',
};
const search = { method: "GET", path: "/v1/resources/search?query=train" };
const createKey = { method: "POST", path: "/v1/api-keys", body: '{"apikeyId":"ci-deploy-key"}' };
type Call = { method: string; path: string; body?: string };

const secret = "cak_TOPSECRET-3q2XQx0mXlY1b5nM4wT8e7rK9sZpA6cV0dF2gH4jL8";

/** Upstream answers that break the contract, and the violations (field, reason) they must produce. */
const violationCases: [
  string,
  { call: Call; answer: (req: Received, res: ServerResponse) => void; want: [string, string][]; neverShown?: string[] },
][] = [
  [
    "wrong types",
    {
      call: patch,
      answer: (_req, res) =>
        json(res, 200, { id: 42, projectId: "proj-alpha", cpuCores: "ninety-six", volumeIds: ["v1", 7] }),
      want: [
        ["response.body.id", "type"],
        ["response.body.cpuCores", "type"],
        ["response.body.volumeIds[1]", "type"],
      ],
      neverShown: ["ninety-six"],
    },
  ],
  [
    "missing required fields",
    {
      call: patch,
      answer: (_req, res) => json(res, 200, { dataCenterId: "dc-fra-1" }),
      want: [
        ["response.body.id", "required"],
        ["response.body.projectId", "required"],
      ],
    },
  ],
  [
    "a secret-carrying body with a bad field",
    {
      call: createKey,
      answer: (_req, res) => json(res, 200, { id: "ci-deploy-key", createTime: "yesterday-ish", key: secret }),
      want: [["response.body.createTime", "format"]],
      neverShown: [secret, "yesterday-ish"],
    },
  ],
  [
    "a secret of the wrong type",
    {
      call: createKey,
      answer: (_req, res) =>
        json(res, 200, { id: "ci-deploy-key", createTime: "2026-11-22T08:00:00Z", key: { value: secret } }),
      want: [["response.body.key", "type"]],
      neverShown: [secret],
    },
  ],
  [
    "an undocumented status",
    {
      call: search,
      answer: (_req, res) => json(res, 201, { results: [] }),
      want: [["response.status", "undocumented-status"]],
    },
  ],
  [
    "an undocumented 5xx status",
    {
      call: search,
      answer: (_req, res) => json(res, 501, { code: 501, message: "not implemented" }),
      want: [["response.status", "undocumented-status"]],
    },
  ],
  [
    "a 5xx body that is not an ErrorBody",
    {
      call: patch,
      answer: (_req, res) => json(res, 500, { error: "boom" }),
      want: [
        ["response.body.code", "required"],
        ["response.body.message", "required"],
      ],
    },
  ],
  [
    "a non-JSON body",
    {
      call: search,
      answer: (_req, res) => {
        res.writeHead(200, { "content-type": "text/html" });
        res.end("<html>maintenance</html>");
      },
      want: [["response.header.content-type", "content-type"]],
    },
  ],
  [
    "malformed JSON",
    {
      call: search,
      answer: (_req, res) => json(res, 200, '{"results": [{"resourceType": '),
      want: [["response.body", "malformed-json"]],
    },
  ],
  [
    "no body where one is documented",
    {
      call: search,
      answer: (_req, res) => {
        res.writeHead(200, { "content-length": 0 });
        res.end();
      },
      want: [["response.body", "body"]],
    },
  ],
];

const timeoutMs = 400;
const maxResponseBytes = 2048;

/** Faults: the same answer in every mode. */
const faultCases: [
  string,
  { answer: (req: Received, res: ServerResponse) => void; status: number; message: RegExp },
][] = [
  // Never answered, never finished: past the gateway's timeout however busy the machine.
  [
    "an answer that never comes",
    {
      answer: () => {},
      status: 504,
      message: new RegExp(`upstream did not respond within ${timeoutMs} ms`),
    },
  ],
  [
    "a body that stalls after the headers",
    {
      answer: (_req, res) => {
        res.writeHead(200, { "content-type": "application/json", "content-length": 100 });
        res.write('{"results":');
      },
      status: 504,
      message: /did not respond within/,
    },
  ],
  [
    "a connection dropped mid-response",
    {
      answer: (_req, res) => {
        res.writeHead(200, { "content-type": "application/json", "content-length": 1000 });
        res.write('{"results": [', () => res.socket?.destroy());
      },
      status: 502,
      message: /connection closed before the response was complete/,
    },
  ],
  [
    "a connection dropped before any response",
    { answer: (_req, res) => void res.socket?.destroy(), status: 502, message: /connection closed/ },
  ],
  [
    "an oversized body (declared)",
    {
      answer: (_req, res) => json(res, 200, { results: [], padding: "x".repeat(maxResponseBytes) }),
      status: 502,
      message: /larger than the limit of 2048 bytes/,
    },
  ],
  [
    "an oversized body (chunked)",
    {
      answer: (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"results": [], "padding": "');
        res.write("x".repeat(maxResponseBytes));
        res.end('"}');
      },
      status: 502,
      message: /larger than the limit/,
    },
  ],
];

const servers = gatewaysByMode({ timeoutMs, maxResponseBytes });
const { gateways } = servers;

async function send(mode: ResponseValidationMode, call: Call): Promise<{ res: Response; bytes: Buffer }> {
  const headers = {
    ...auth,
    "x-request-id": `${mode}-${Math.random().toString(36).slice(2)}`,
    ...(call.body ? { "content-type": "application/json" } : {}),
  };
  const res = await fetch(gateways.get(mode)!.url + call.path, {
    method: call.method,
    headers,
    ...(call.body ? { body: call.body } : {}),
  });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** What the upstream sends for a case, straight from it. */
async function direct(call: Call): Promise<{ status: number; bytes: Buffer }> {
  const res = await fetch(servers.upstream.url + call.path, {
    method: call.method,
    ...(call.body ? { body: call.body } : {}),
  });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe.each(violationCases)("an upstream sending %s", (_name, { call, answer, want, neverShown = [] }) => {
  beforeAll(() => {
    servers.upstream.answer = answer;
  });

  it("enforce: answers 502 naming each violation by field and reason, never the values", async () => {
    const { res, bytes } = await send("enforce", call);
    expect(res.status).toBe(502);
    const body = JSON.parse(bytes.toString()) as {
      code: number;
      message: string;
      details: { fieldViolations?: { field: string; reason: string }[] }[];
    };
    expect(body.code).toBe(502);
    expect(body.message).toBe("upstream response does not conform to the interface");
    const violations = body.details.flatMap((d) => d.fieldViolations ?? []).map((v) => [v.field, v.reason]);
    expect(violations.sort()).toEqual([...want].sort());
    for (const value of neverShown) {
      expect(bytes.toString()).not.toContain(value);
      expect(gateways.get("enforce")!.logText()).not.toContain(value);
    }
  });

  it("report: passes the response unchanged, with x-contract-violations and one log line naming them", async () => {
    const { status, bytes: want_bytes } = await direct(call);
    const { res, bytes } = await send("report", call);
    expect(res.status).toBe(status);
    expect(bytes.equals(want_bytes)).toBe(true);
    expect(res.headers.get("x-contract-violations")).toBe(String(want.length));
    const id = res.headers.get("x-request-id");
    const lines = gateways
      .get("report")!
      .logs.filter((l) => l.reqId === id && l.msg === "upstream response breaks the contract");
    expect(lines).toHaveLength(1);
    expect(
      (lines[0]!.violations as { field: string; reason: string }[]).map((v) => [v.field, v.reason]).sort(),
    ).toEqual([...want].sort());
    for (const value of neverShown) expect(gateways.get("report")!.logText()).not.toContain(value);
  });

  it("off: passes the response unchanged and says nothing", async () => {
    const { status, bytes: want_bytes } = await direct(call);
    const { res, bytes } = await send("off", call);
    expect(res.status).toBe(status);
    expect(bytes.equals(want_bytes)).toBe(true);
    expect(res.headers.get("x-contract-violations")).toBeNull();
  });
});

describe.each(faultCases)("an upstream with %s", (_name, { answer, status, message }) => {
  beforeAll(() => {
    servers.upstream.answer = answer;
  });

  it.each(modes)("%s: answers with the error body and the fault's status", async (mode) => {
    const { res, bytes } = await send(mode, search);
    expect(res.status).toBe(status);
    const body = JSON.parse(bytes.toString()) as { code: number; message: string };
    expect(body.code).toBe(status);
    expect(body.message).toMatch(message);
    expect(res.headers.get("x-contract-violations")).toBeNull();
  });
});
