import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Verdicts } from "../src/checks.js";
import type { Case, Generator } from "../src/generators.js";
import { createResults } from "../src/results.js";

const generator: Generator = { name: "g", arbitrary: fc.constant({} as Case) };
const caseOf = (operationId: string, path: string): Case => ({
  operationId,
  request: { method: "GET", path },
  judge: () => ({}),
});

describe("createResults", () => {
  it.each<[string, { given: [Case, Verdicts][]; want: { list: unknown[]; failing: number } }]>([
    [
      "counts passes and failures by check and operation, keeping the first failure",
      {
        given: [
          [caseOf("searchResources", "/1"), { not_a_server_error: null }],
          [caseOf("searchResources", "/2"), { not_a_server_error: "answered 500" }],
          [caseOf("searchResources", "/3"), { not_a_server_error: "answered 502" }],
        ],
        want: {
          list: [
            {
              check: "not_a_server_error",
              operationId: "searchResources",
              passed: 1,
              failed: 2,
              failure: { message: "answered 500", request: { method: "GET", path: "/2" } },
            },
          ],
          failing: 1,
        },
      },
    ],
    [
      "lists by check in the order of the catalogue, then by operation",
      {
        given: [
          [caseOf("updateClusterMachine", "/1"), { ignored_auth: null, not_a_server_error: null }],
          [caseOf("createApiKey", "/2"), { ignored_auth: null }],
        ],
        want: {
          list: [
            { check: "not_a_server_error", operationId: "updateClusterMachine", passed: 1, failed: 0 },
            { check: "ignored_auth", operationId: "createApiKey", passed: 1, failed: 0 },
            { check: "ignored_auth", operationId: "updateClusterMachine", passed: 1, failed: 0 },
          ],
          failing: 0,
        },
      },
    ],
    ["nothing recorded, nothing listed", { given: [], want: { list: [], failing: 0 } }],
  ])("%s", (_name, { given, want }) => {
    const results = createResults();
    for (const [index, [c, verdicts]] of given.entries()) results.record(c, verdicts, { generator, seed: 1, index });
    expect(results.list()).toEqual(want.list);
    expect(results.failing()).toBe(want.failing);
  });

  it("keeps the replay of each first failure until the list is made", () => {
    const results = createResults();
    results.record(caseOf("searchResources", "/1"), { search_order: null }, { generator, seed: 7, index: 0 });
    results.record(caseOf("searchResources", "/2"), { search_order: "out of order" }, { generator, seed: 7, index: 1 });
    results.record(caseOf("searchResources", "/3"), { search_order: "out of order" }, { generator, seed: 8, index: 2 });
    expect([...results.pending()].map((r) => r.replay)).toEqual([{ generator, seed: 7, index: 1 }]);
    expect(results.list()[0]).not.toHaveProperty("replay");
  });
});
