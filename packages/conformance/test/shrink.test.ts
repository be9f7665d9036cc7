import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Generator } from "../src/generators.js";
import type { Answer } from "../src/http.js";
import type { PendingResult } from "../src/results.js";
import { shrinkFailures } from "../src/shrink.js";

/** Cases of GETs of `/n` for n up to 1000, failing not_a_server_error from `threshold` on (the backend is not asked). */
const generatorFailingFrom = (threshold: number): Generator => ({
  name: "numbers",
  arbitrary: fc.integer({ min: 0, max: 1000 }).map((n) => ({
    operationId: "searchResources",
    request: { method: "GET", path: `/${n}` },
    judge: () => ({ not_a_server_error: n >= threshold ? `answered 500 for ${n}` : null }),
  })),
});

/** The result of the first failing case of the generator's sample, with its replay. */
function firstFailure(generator: Generator, seed: number): PendingResult {
  const sample = fc.sample(generator.arbitrary, { seed, numRuns: 100 });
  const index = sample.findIndex((c) => c.judge({} as Answer).not_a_server_error);
  const c = sample[index]!;
  return {
    check: "not_a_server_error",
    operationId: c.operationId,
    passed: index,
    failed: 1,
    failure: { message: String(c.judge({} as Answer).not_a_server_error), request: c.request },
    replay: { generator, seed, index },
  };
}

describe("shrinkFailures", () => {
  it.each<[string, { given: { threshold: number }; want: { path: string; message: string } }]>([
    [
      "to the smallest request that still fails",
      { given: { threshold: 10 }, want: { path: "/10", message: "answered 500 for 10" } },
    ],
    [
      "to the boundary wherever it is",
      { given: { threshold: 600 }, want: { path: "/600", message: "answered 500 for 600" } },
    ],
  ])("%s", async (_name, { given, want }) => {
    const result = firstFailure(generatorFailingFrom(given.threshold), 3);
    let sent = 0;
    await shrinkFailures([result], async () => {
      sent++;
      return { status: 200, headers: {}, text: "", json: undefined };
    });
    expect(result.failure?.shrunk).toMatchObject({ request: { path: want.path }, message: want.message });
    expect(result.failure?.shrunk?.steps).toBeGreaterThan(0);
    expect(sent).toBeGreaterThan(1);
  });

  it("leaves a result without a failure, or without its replay, as it was", async () => {
    const passed: PendingResult = { check: "search_order", operationId: "searchResources", passed: 3, failed: 0 };
    const { replay: _replay, ...unreplayable } = firstFailure(generatorFailingFrom(10), 3);
    let sent = 0;
    await shrinkFailures([passed, unreplayable], async () => {
      sent++;
      return { status: 200, headers: {}, text: "", json: undefined };
    });
    expect(sent).toBe(0);
    expect(unreplayable.failure).not.toHaveProperty("shrunk");
  });
});
