/**
 * The verdicts of a run, counted by check and operation, in the order the report lists them; the first failure
 * of each is kept with where its case came from, so that it can be replayed and shrunk.
 */
import { type CheckName, checks, type Verdicts } from "./checks.js";
import type { Case, Generator } from "./generators.js";
import type { RawRequest } from "./http.js";

/** The first failure of a check on an operation: what was sent, and the smallest request that still fails. */
export interface Failure {
  message: string;
  request: RawRequest;
  shrunk?: { request: RawRequest; message: string; steps: number };
}

/** The counts of one check on one operation. */
export interface CheckResult {
  check: CheckName;
  operationId: string;
  passed: number;
  failed: number;
  failure?: Failure;
}

/** Where a case came from: its generator, the seed of its sample and its index there. */
export interface Replay {
  generator: Generator;
  seed: number;
  index: number;
}

/** A result with the replay of its first failure. */
export type PendingResult = CheckResult & { replay?: Replay };

/** The tally of a run. */
export interface Results {
  /** Counts the verdicts on the answer to a case; a case without a replay (a scripted probe) is not shrunk. */
  record(c: Pick<Case, "operationId" | "request">, verdicts: Verdicts, replay?: Replay): void;
  /** Checks, by operation, that failed at least once so far. */
  failing(): number;
  /** Every result so far, with the replays of their first failures. */
  pending(): Iterable<PendingResult>;
  /** The results without their replays, by check in the order of `checks`, then by operation. */
  list(): CheckResult[];
}

/** An empty tally. */
export function createResults(): Results {
  const results = new Map<string, PendingResult>();
  return {
    record(c, verdicts, replay) {
      for (const [check, verdict] of Object.entries(verdicts) as [CheckName, string | null][]) {
        const key = `${check} ${c.operationId}`;
        const result = results.get(key) ?? { check, operationId: c.operationId, passed: 0, failed: 0 };
        if (verdict === null) result.passed++;
        else {
          result.failed++;
          if (!result.failure)
            Object.assign(result, { failure: { message: verdict, request: c.request }, ...(replay ? { replay } : {}) });
        }
        results.set(key, result);
      }
    },
    failing: () => [...results.values()].filter((r) => r.failed > 0).length,
    pending: () => results.values(),
    list() {
      const order = Object.keys(checks);
      return [...results.values()]
        .map(({ replay: _replay, ...result }) => result)
        .sort((a, b) => order.indexOf(a.check) - order.indexOf(b.check) || a.operationId.localeCompare(b.operationId));
    },
  };
}
