/**
 * The short soak of `npm test` (`npm run soak` is the long one): a few seconds of many concurrent clients
 * against the stub and through the gateway, each server in its own process. Every check must pass: no 5xx,
 * every answer as the oracle says, no lost writes, every created key works, memory within bounds (loose for a
 * run this short: RSS is still settling).
 */
import { expect, it } from "vitest";
import { seed } from "./support/property.js";
import { formatReport, runSoak } from "./support/soak.js";

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
