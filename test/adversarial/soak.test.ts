/**
 * The short soak of `npm test` (`npm run soak` is the long one): a few seconds of many concurrent clients
 * against the stub and through the gateway, each server in its own process. Every check must pass: no 5xx,
 * every answer as the oracle says, no lost writes, every created key works, memory within bounds (loose for a
 * run this short: RSS is still settling).
 */
import { expect, it } from "vitest";
import { facts } from "./support/facts.js";
import { seed } from "./support/property.js";
import { formatReport, machineAsPatched, machineAsSearched, runSoak } from "./support/soak.js";
import { startTarget } from "./support/targets.js";

it("a short soak: no 5xx, answers as the oracle says, no lost writes, every created key works", async () => {
  const report = await runSoak({ seconds: 4, clients: 12, warmupSeconds: 1, rssBoundMiB: 128, heapBoundMiB: 16, seed });
  const failed = report.checks.filter((c) => !c.ok);
  expect(failed, formatReport(report)).toEqual([]);
  expect(report.rows.map((r) => `${r.via} ${r.operation}`).sort()).toEqual([
    "direct createApiKey",
    "direct searchResources",
    "direct updateClusterMachine",
    "gateway createApiKey",
    "gateway searchResources",
    "gateway updateClusterMachine",
  ]);
}, 180_000);

// The soak reads each machine at the end three ways; a machine no acknowledged write reached (few requests on a busy
// machine) must read as it was, the built-in cm-gamma-01 included, whose state and power state are both UNSPECIFIED.
it("the soak's final readings of machines no write reached: the no-op PATCH answers each as search shows it", async () => {
  const stub = await startTarget("stub");
  try {
    for (const { projectId, id, clusterId } of facts.machines) {
      const searched = await machineAsSearched(stub.url, projectId, id, clusterId);
      expect(searched, `${projectId}/${id}`).toBeDefined();
      expect(await machineAsPatched(stub.url, projectId, id), `${projectId}/${id}`).toEqual(searched);
    }
  } finally {
    await stub.close();
  }
});
