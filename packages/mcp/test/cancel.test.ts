/**
 * Cancelling a tool call reaches the service, over stdio and over Streamable HTTP: the SDK's client aborts a call
 * (it sends `notifications/cancelled`), and compute-mcp aborts its request to the service. A slow service is a
 * small server in front of the real stub that holds each PATCH until its caller hangs up, or for at most 20 s,
 * (or until the test releases it) and forwards it only when the caller is still there: a request that was not
 * aborted is applied.
 */
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { SearchResourcesResponse } from "@compute-api/client";
import { type Listening, listenLocal } from "@compute-api/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectHttp,
  connectStdio,
  type HttpMcp,
  keys,
  killStarted,
  startHttp,
  startStub,
  type TestStub,
} from "./support.js";

afterAll(killStarted);

const token = "mcp-cancel-client-token-0123456789";
/** The longest a PATCH is held: a bound for the test, far beyond what a cancellation takes. */
const holdMs = 20_000;

/** What became of a held PATCH. */
type Outcome = "caller hung up" | "forwarded";

/** A server in front of `upstream` that holds each PATCH (see above); `held()` resolves when one arrives. */
async function slowFront(upstream: string) {
  let arrived: () => void = () => {};
  let outcome: Promise<Outcome> = new Promise(() => {});
  let release: () => void = () => {};
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const target = new URL(req.url ?? "/", upstream);
    const out = request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on("error", () => res.destroy());
    out.end(body);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      if (req.method !== "PATCH") return forward(req, res, body);
      outcome = new Promise<Outcome>((resolve) => {
        release = () => {
          clearTimeout(timer);
          forward(req, res, body);
          resolve("forwarded");
        };
        const timer = setTimeout(release, holdMs);
        res.once("close", () => {
          clearTimeout(timer);
          if (!res.writableFinished) resolve("caller hung up");
        });
      });
      arrived();
    });
  });
  const listening: Listening = await listenLocal(server);
  return {
    ...listening,
    /** Resolves when the next PATCH arrives; then `outcome()` tells what became of it. */
    held: () =>
      new Promise<void>((resolve) => {
        arrived = resolve;
      }),
    outcome: () => outcome,
    /** Forwards the held PATCH now. */
    release: () => release(),
  };
}

const setups: { name: string; connect(baseUrl: string): Promise<{ client: Client; close(): Promise<void> }> }[] = [
  { name: "stdio", connect: (baseUrl) => connectStdio(baseUrl, keys.alice) },
  {
    name: "Streamable HTTP",
    async connect(baseUrl) {
      const server = await startHttp(baseUrl, keys.alice, { COMPUTE_MCP_AUTH_TOKEN: token });
      const client = await connectHttp(server.url, token);
      return {
        client,
        close: async () => {
          await client.close();
          await server.close();
        },
      };
    },
  },
];

describe.each(setups)("cancelling a call over $name", { timeout: 120_000 }, (setup) => {
  let stub: TestStub;
  let front: Awaited<ReturnType<typeof slowFront>>;
  let session: { client: Client; close(): Promise<void> };
  beforeAll(async () => {
    stub = await startStub();
    front = await slowFront(stub.url);
    session = await setup.connect(front.url);
  });
  afterAll(async () => {
    await session?.close();
    await front?.close();
    await stub?.close();
  });

  it("aborts the request to the service, and the change is not applied", async () => {
    await stub.clearRequests();
    const cancel = new AbortController();
    const held = front.held();
    const call = session.client.callTool(
      {
        name: "updateClusterMachine",
        arguments: { projectId: "proj-alpha", id: "cm-alpha-02", powerState: "REBOOTING" },
      },
      undefined,
      { signal: cancel.signal },
    );
    await held;
    cancel.abort("the user changed their mind");
    await expect(call).rejects.toThrow(/changed their mind/);
    expect(await front.outcome()).toBe("caller hung up");
    expect(await stub.requests({ method: "PATCH" })).toEqual([]);
    const search = await session.client.callTool({ name: "searchResources", arguments: { query: "cl-train-01" } });
    const [cluster] = (search.structuredContent as SearchResourcesResponse).results;
    if (cluster?.resourceType !== "cluster") throw new Error("not a cluster");
    expect(cluster.cluster.machines?.find((m) => m.id === "cm-alpha-02")?.powerState).toBe("ON");
  });
});

describe("cancelling over Streamable HTTP, spoken as plain HTTP", { timeout: 120_000 }, () => {
  let stub: TestStub;
  let front: Awaited<ReturnType<typeof slowFront>>;
  let server: HttpMcp;
  beforeAll(async () => {
    stub = await startStub();
    front = await slowFront(stub.url);
    server = await startHttp(front.url, keys.alice);
  });
  afterAll(async () => {
    await server?.close();
    await front?.close();
    await stub?.close();
  });

  /** POSTs one message as a client of session `session` would. */
  const post = (session: string, message: object) =>
    fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
        "mcp-session-id": session,
      },
      body: JSON.stringify({ jsonrpc: "2.0", ...message }),
    });

  it("issues a session id at initialize, and a cancellation aborts only the call of its own session", async () => {
    const init = await post("", {
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "plain", version: "1" } },
    });
    const session = init.headers.get("mcp-session-id") ?? "";
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    const held = front.held();
    const answer = post(session, {
      id: 7,
      method: "tools/call",
      params: {
        name: "updateClusterMachine",
        arguments: { projectId: "proj-alpha", id: "cm-alpha-01", state: "FAILED" },
      },
    });
    await held;
    // Another session's request 7 is not this one: its cancellation is accepted and changes nothing here.
    const other = await post(`${session}-other`, { method: "notifications/cancelled", params: { requestId: 7 } });
    expect(other.status).toBe(202);
    front.release();
    const result = (await (await answer).json()) as { result: { isError?: boolean; structuredContent?: object } };
    expect(result.result.isError).toBeUndefined();
    expect(result.result.structuredContent).toMatchObject({ id: "cm-alpha-01", state: "FAILED" });
    expect(await stub.requests({ method: "PATCH" })).toHaveLength(1);
  });
});
