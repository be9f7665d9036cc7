/**
 * Run by new-operation.test.ts inside a built copy of the repository whose openapi/ has the operations of
 * test/spec/new-operations added, with the copy's own built packages (dist/, not sources): starts the copy's stub
 * and asks it the new operations; builds the copy's server kit with the three operations it had; runs the copy's
 * conformance runner against the stub and against a backend that answers 500 to the new operations (behind the
 * copy's gateway, which refuses broken requests). Prints what it saw as one JSON line.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { runConformance } from "@compute-api/conformance";
import { createGateway } from "@compute-api/gateway";
import { createLogger } from "@compute-api/runtime";
import { createComputeServer, type Handlers } from "@compute-api/server";
import { startServer } from "@compute-api/stub-server";
import { listenLocal } from "@compute-api/test-support";

/** The operations added to the copy, and the key the probe uses. */
const added = ["getDisk", "listImages", "deleteNetwork"];
const key = "cak_new-operations-alice";
const writes = { projectId: "proj-alpha", machineId: "cm-alpha-01" };

/** A backend that answers 500 to the new operations' paths and sends the rest to the stub. */
const failingBackend = (stubUrl: string) => (req: IncomingMessage, res: ServerResponse) => {
  const url = new URL(req.url ?? "/", "http://x");
  if (/\/(disks|images|networks)(\/|$)/.test(url.pathname)) {
    req.resume();
    const status = req.headers.authorization === `Bearer ${key}` ? 500 : 401;
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ code: status, message: "x" }));
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", async () => {
    // Framing headers are the new request's own (fetch sets them from the body it sends).
    const dropped = new Set(["host", "connection", "content-length", "transfer-encoding"]);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !dropped.has(k)));
    try {
      const answer = await fetch(new URL(url.pathname + url.search, stubUrl), {
        method: req.method ?? "GET",
        headers: headers as Record<string, string>,
        ...(chunks.length > 0 && { body: Buffer.concat(chunks) }),
      });
      const answered = Object.fromEntries(
        [...answer.headers].filter(([k]) => !["content-length", "transfer-encoding", "content-encoding"].includes(k)),
      );
      res.writeHead(answer.status, answered).end(Buffer.from(await answer.arrayBuffer()));
    } catch (error) {
      res
        .writeHead(502, { "content-type": "application/json" })
        .end(JSON.stringify({ code: 502, message: String(error) }));
    }
  });
};

/** The failed checks of a run, as `check operationId`. */
const failedChecks = (report: Awaited<ReturnType<typeof runConformance>>) =>
  report.results.filter((r) => r.failed > 0).map((r) => `${r.check} ${r.operationId}`);

const logs: string[] = [];
const logger = createLogger({ level: "info", destination: { write: (line: string) => logs.push(line) } });
const stub = await startServer({ port: 0, host: "127.0.0.1", apiKeys: { alice: key }, logger });
const call = async (method: string, path: string) => {
  const answer = await fetch(`${stub.url}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
  return { status: answer.status, body: await answer.text() };
};
const out: Record<string, unknown> = {
  startLine: logs.find((line) => line.includes("answered from the spec's examples")),
  getDisk: await call("GET", "/v1/projects/proj-alpha/disks/disk-alpha-01"),
  listImages: await call("GET", "/v1/projects/proj-alpha/images?pageSize=5"),
  deleteNetwork: await call("DELETE", "/v1/projects/proj-alpha/networks/net-alpha-01"),
  withoutKey: (await fetch(`${stub.url}/v1/projects/proj-alpha/disks/disk-alpha-01`)).status,
};

// The server kit, given handlers for the three operations it had: refused, naming each new one.
const three = { updateClusterMachine: () => ({}), createApiKey: () => ({}), searchResources: () => ({}) };
out.serverKit = await createComputeServer({ authenticate: () => ({}), handlers: three as unknown as Handlers<object> })
  .then(() => "started")
  .catch((error: Error) => error.message);

const silent = createLogger({ level: "silent" });
const run = (baseUrl: string) =>
  runConformance({ baseUrl, apiKey: key, writes, only: added, runs: 10, rate: 1000, seed: 7 });
const againstStub = await run(stub.url);
out.conformanceStub = { passed: againstStub.passed, failed: failedChecks(againstStub) };
out.validRequests = Object.fromEntries(
  added.map((operationId) => [
    operationId,
    againstStub.results.find((r) => r.check === "not_a_server_error" && r.operationId === operationId)?.passed ?? 0,
  ]),
);
const backend = await listenLocal(failingBackend(stub.url));
const gateway = await createGateway({ upstream: backend.url, logger: silent });
const front = await listenLocal(gateway.app);
const failing = await run(front.url);
out.conformanceFailing = { passed: failing.passed, failed: failedChecks(failing) };

await Promise.all([front.close(), backend.close()]);
await gateway.close();
await stub.close();
process.stdout.write(`${JSON.stringify(out)}\n`);
