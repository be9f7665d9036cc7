/**
 * `compute-conformance --writes` holds the Postgres example to the spec: on PGlite, through the validation gateway
 * in front of it, and on a real PostgreSQL server (skipped with one line where PostgreSQL is absent, never under
 * CI). Every check must pass, and the machine the run wrote to must be as it was.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { runCli } from "@compute-api/conformance";
import { createGateway, type Gateway } from "@compute-api/gateway";
import { createLogger } from "@compute-api/runtime";
import { skipWithoutPostgres } from "@compute-api/test-support/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Backend, RunningBackend } from "./support/contract-suite.js";
import { pgliteBackend, postgresServerBackend } from "./support/postgres-backends.js";

const key = "cak_conformance-alice";

/** Runs the command and collects what it prints. */
async function conformance(...argv: string[]): Promise<{ code: number; out: string }> {
  let out = "";
  const code = await runCli(argv, { stdout: (t) => (out += t), stderr: (t) => (out += t) });
  return { code, out };
}

/** The machine the run writes to, as search shows it to alice. */
async function machine(url: string): Promise<unknown> {
  const res = await fetch(`${url}/v1/resources/search?query=type:cluster%20cl-train-01`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const { results } = (await res.json()) as { results: { cluster: { machines: { id: string }[] } }[] };
  return results[0]?.cluster.machines.find((m) => m.id === "cm-alpha-01");
}

function conformanceSuite(backend: Backend): void {
  let running: RunningBackend;
  let gateway: Gateway;
  let gatewayServer: Server;
  let gatewayUrl: string;

  beforeAll(async () => {
    running = await backend.start({ apiKeys: { alice: key }, compress: false });
    gateway = await createGateway({ upstream: running.url, logger: createLogger({ level: "silent" }) });
    gatewayServer = gateway.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => gatewayServer.once("listening", resolve));
    gatewayUrl = `http://127.0.0.1:${(gatewayServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    gatewayServer?.closeAllConnections();
    await new Promise((resolve) => gatewayServer?.close(resolve));
    await gateway?.close();
    await running?.close();
  });

  const writes = (url: string) =>
    conformance(
      ...["--base-url", url, "--api-key", key, "--runs", "25", "--rate", "1000", "--seed", "19"],
      ...["--writes", "--project", "proj-alpha", "--machine", "cm-alpha-01"],
    );

  it("with writes: every check passes, and the machine is as it was", async () => {
    const before = await machine(running.url);
    const { code, out } = await writes(running.url);
    expect(out).toMatch(/every check passed/);
    expect(out).toMatch(/restored proj-alpha\/cm-alpha-01/);
    expect(code).toBe(0);
    expect(await machine(running.url)).toEqual(before);
  });

  it("with writes, through the gateway: every check passes", async () => {
    const { code, out } = await writes(gatewayUrl);
    expect(out).toMatch(/every check passed/);
    expect(code).toBe(0);
  });
}

describe("the Postgres example on PGlite", () => {
  conformanceSuite(pgliteBackend);
});

describe.skipIf(skipWithoutPostgres())("the Postgres example on a PostgreSQL server", () => {
  conformanceSuite(postgresServerBackend);
});
