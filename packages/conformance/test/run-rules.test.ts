/**
 * The checks of the rules the operations' descriptions state, against a backend that keeps every rule of the
 * schema and breaks those (test/naive-backend.ts): each broken rule is reported by its named check, with a curl
 * line, and the machine is put back. The stub passing every one of them is run.test.ts's.
 */
import type { Listening } from "@compute-api/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../src/cli.js";
import { naiveKey, startNaiveBackend } from "./naive-backend.js";

/** Runs the command with writes to the naive backend's machine and collects what it prints. */
async function run(url: string, ...argv: string[]): Promise<{ code: number; out: string }> {
  let out = "";
  const code = await runCli(
    [
      ...["--base-url", url, "--api-key", naiveKey, "--rate", "1000", "--seed", "3"],
      ...["--writes", "--project", "proj-naive", "--machine", "cm-naive-1", ...argv],
    ],
    { stdout: (t) => (out += t), stderr: (t) => (out += t) },
  );
  return { code, out };
}

/** The report's section of the first failure of a check on an operation. */
const failureOf = (out: string, check: string, operationId: string) =>
  out.split("\n✗ ").find((s) => s.startsWith(`${check} · ${operationId}`));

describe("against a backend that breaks the operations' rules", () => {
  let backend: Listening;
  let result: { code: number; out: string };
  beforeAll(async () => {
    backend = await startNaiveBackend();
    result = await run(backend.url, "--runs", "10");
  });
  afterAll(() => backend?.close(0));

  it("exits 1", () => {
    expect(result.code).toBe(1);
  });

  it.each([
    [
      "priceHr stored as sent",
      "price_normalization",
      "updateClusterMachine",
      /priceHr "\+\.5" answered as "\+\.5", not "0\.5"/,
    ],
    [
      "a volume that does not exist accepted",
      "unknown_volume_rejection",
      "updateClusterMachine",
      /a volume that does not exist at volumeIds\[1\]: answered 200, not 400/,
    ],
    [
      "an answer of only the fields sent",
      "partial_update",
      "updateClusterMachine",
      /the answer has cpuCores absent, not 8/,
    ],
    [
      "totals kept from the start",
      "cluster_totals",
      "searchResources",
      /cluster cl-naive lists 2 machines but carries totalMachinePriceHr "3\.5", not 2\.5/,
    ],
    ["results that do not match the terms", "search_matching", "searchResources", /matches no field for '/],
    ["every result scored 100", "search_score", "searchResources", /scored 100, not \d+/],
    [
      "clusters named …/cluster/…",
      "search_resource_name",
      "searchResources",
      /projects\/proj-naive\/cluster\/cl-naive for the cluster cl-naive, not projects\/proj-naive\/clusters\/cl-naive/,
    ],
    [
      "queries no rule refuses",
      "search_query_rules",
      "searchResources",
      /a query the rules refuse \([a-z-]+\) answered 200, not 400/,
    ],
    ["a second key of the same id", "api_key_uniqueness", "createApiKey", /again answered 200, not 409/],
    ["keys that do not work", "api_key_usable", "createApiKey", /a search with the new key answered 401, not 200/],
  ])("reports %s under %s, with a curl line", (_name, check, operationId, message) => {
    const section = failureOf(result.out, check, operationId);
    expect(section, `no failure of ${check} on ${operationId} in:\n${result.out}`).toBeDefined();
    expect(section).toMatch(message);
    expect(section).toMatch(/\n {2}curl -X \w+ 'http:\/\/127\.0\.0\.1:\d+\/v1\/[^']*'/);
  });

  it("shows the new key's search with the key written $NEW_KEY, never the key", () => {
    expect(failureOf(result.out, "api_key_usable", "createApiKey")).toMatch(/-H 'authorization: Bearer \$NEW_KEY'/);
    expect(result.out).not.toMatch(/cak_\d+/);
  });

  it("puts back the volumes it wrongly got to set, and restores the machine", () => {
    expect(result.out).toMatch(
      /note: the backend accepted a volume that does not exist; volumeIds were put back \(answered 200\)/,
    );
    expect(result.out).toMatch(
      /note: the backend accepted volume vol-other-data of project proj-other; volumeIds were put back/,
    );
    expect(result.out).toMatch(
      /note: restored proj-naive\/cm-naive-1 to \{"powerState":"ON","priceHr":\{"value":"1\.5"\}\}/,
    );
  });

  it("keeps the checks of the rules it keeps passing (search order and access, the change visible)", () => {
    for (const [check, operationId] of [
      ["search_order", "searchResources"],
      ["search_access", "searchResources"],
      ["update_visibility", "updateClusterMachine"],
    ])
      expect(result.out).toMatch(new RegExp(`\\n${check}\\s+${operationId}\\s+[1-9]\\d*\\s+0\\n`));
  });
});

describe("against a backend whose search shows the data as it was at start", () => {
  it("reports update_visibility", async () => {
    const backend = await startNaiveBackend({ staleSearch: true });
    try {
      const { code, out } = await run(backend.url, "--runs", "2", "--only", "updateClusterMachine");
      expect(code).toBe(1);
      expect(failureOf(out, "update_visibility", "updateClusterMachine")).toMatch(
        /after the PATCH, search shows cm-naive-1 with priceHr \{"value":"1\.5"\}, not \{"value":"\+\.5"\}/,
      );
    } finally {
      await backend.close(0);
    }
  });
});
