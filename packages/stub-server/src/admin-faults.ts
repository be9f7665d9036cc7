/**
 * The fault settings as the admin API reads and writes them, and the MSW handlers' `setFaults` with them: in the
 * syntax of the command-line flags (`--faults 429=2%,503=1%` is `"faults": "429=2%,503=1%"`), each parsed by the
 * flag's own parser (fault-values.ts), so that there is one syntax to learn and one check of it. Scenarios are JSON steps by operationId (a step list in the flag's syntax, `503x2,200`,
 * is read too), checked against the statuses each operation documents.
 */
import type { FieldViolation } from "@compute-api/contract";
import { maxRetryAfterSeconds, parseSteps, type Scenarios, scenarioViolations } from "./fault-scenarios.js";
import { milliseconds, perSecond, sharePercent, statusShares } from "./fault-values.js";
import type { FaultOptions } from "./faults.js";

/** The settings in the flags' syntax; `null`: off. */
export interface FaultSettings {
  faults: string | null;
  latency: string | null;
  drop: string | null;
  rateLimit: string | null;
  prefer: boolean;
  seed: number;
  /** Seconds of `Retry-After` on an injected 429 or 503. */
  retryAfter: number;
  /** The scenarios by operationId (`*`: any other operation), or null. */
  scenarios: Scenarios | null;
}

/** A share as the flags write it: 0.005 → `0.5%`. */
const share = (value: number) => `${Number((value * 100).toFixed(6))}%`;

/** Requests a second as the flags write them: `20/s`, or `1/min` for a rate under one a second that is whole a minute. */
const rate = (perSecond: number) => {
  const perMinute = Number((perSecond * 60).toFixed(6));
  return perSecond < 1 && Number.isInteger(perMinute) ? `${perMinute}/min` : `${Number(perSecond.toFixed(6))}/s`;
};

/** The settings of a run in the flags' syntax. */
export function faultSettingsOf(options: FaultOptions): FaultSettings {
  const { faults, latencyMs, drop, rateLimit } = options;
  return {
    faults: faults?.length ? faults.map((f) => `${f.status}=${share(f.share)}`).join(",") : null,
    latency: latencyMs
      ? latencyMs.min === latencyMs.max
        ? `${latencyMs.min}`
        : `${latencyMs.min}-${latencyMs.max}`
      : null,
    drop: drop ? share(drop) : null,
    rateLimit: rateLimit === undefined ? null : rate(rateLimit),
    prefer: options.prefer !== false,
    seed: options.seed ?? 1,
    retryAfter: options.retryAfterSeconds ?? 1,
    scenarios: options.scenarios && Object.keys(options.scenarios).length > 0 ? options.scenarios : null,
  };
}

/** Each setting: the flag's parser, and the option it sets. */
type Statuses = ReadonlyMap<string, readonly string[]>;
const parsers = {
  faults: (v: string, o: FaultOptions, s: Statuses) => Object.assign(o, { faults: statusShares(v, s) }),
  latency: (v: string, o: FaultOptions) => Object.assign(o, { latencyMs: milliseconds(v) }),
  drop: (v: string, o: FaultOptions) => Object.assign(o, { drop: sharePercent(v) }),
  rateLimit: (v: string, o: FaultOptions) => Object.assign(o, { rateLimit: perSecond(v) }),
} as const;
const optionOf = { faults: "faults", latency: "latencyMs", drop: "drop", rateLimit: "rateLimit" } as const;

/**
 * The settings a change gives: `current` with the fields of `change` (a JSON object in the flags' syntax; `null`
 * turns a fault off; `scenarios` sets the operations it names, `null` for one removes it), or the violations that
 * refuse it (nothing changes then). `statuses`: what each operation documents (`documentedStatuses`).
 */
export function changeFaults(
  current: FaultOptions,
  change: unknown,
  statuses: ReadonlyMap<string, readonly string[]>,
): FaultOptions | FieldViolation[] {
  if (change === null || typeof change !== "object" || Array.isArray(change))
    return [{ field: "body", description: 'must be a JSON object of fault settings, such as {"faults": "503=10%"}' }];
  const next: FaultOptions = structuredClone(current);
  const violations: FieldViolation[] = [];
  for (const [name, value] of Object.entries(change)) {
    const field = `body.${name}`;
    if (name === "prefer") {
      if (typeof value === "boolean") next.prefer = value;
      else violations.push({ field, description: "must be true or false" });
    } else if (name === "seed") {
      if (Number.isInteger(value) && value >= 0 && value <= 2 ** 32 - 1) next.seed = value;
      else violations.push({ field, description: "must be a whole number from 0 to 4294967295" });
    } else if (name === "retryAfter") {
      if (Number.isInteger(value) && value >= 0 && value <= maxRetryAfterSeconds) next.retryAfterSeconds = value;
      else
        violations.push({ field, description: `must be a whole number of seconds from 0 to ${maxRetryAfterSeconds}` });
    } else if (name === "scenarios") violations.push(...changeScenarios(next, value, statuses));
    else if (name in parsers) {
      const key = name as keyof typeof parsers;
      if (value === null) delete next[optionOf[key]];
      else if (typeof value !== "string")
        violations.push({ field, description: "must be a string in the flag's syntax, or null" });
      else {
        try {
          parsers[key](value, next, statuses);
        } catch (error) {
          violations.push({ field, description: (error as Error).message });
        }
      }
    } else
      violations.push({
        field,
        description: "is not a fault setting (faults, latency, drop, rateLimit, prefer, seed, retryAfter, scenarios)",
      });
  }
  return violations.length > 0 ? violations : next;
}

/** Sets in `next` the scenarios a change names (`null`: all of them off; an operation's `null`: its own off). */
function changeScenarios(
  next: FaultOptions,
  value: unknown,
  statuses: ReadonlyMap<string, readonly string[]>,
): FieldViolation[] {
  if (value === null) {
    delete next.scenarios;
    return [];
  }
  if (typeof value !== "object" || Array.isArray(value)) return scenarioViolations("body.scenarios", value, statuses);
  const scenarios: Record<string, unknown> = { ...next.scenarios };
  const violations: FieldViolation[] = [];
  for (const [operationId, steps] of Object.entries(value)) {
    if (steps === null) delete scenarios[operationId];
    else if (typeof steps !== "string") scenarios[operationId] = steps;
    else {
      try {
        scenarios[operationId] = parseSteps(steps);
      } catch (error) {
        violations.push({ field: `body.scenarios.${operationId}`, description: (error as Error).message });
      }
    }
  }
  // The whole of them checked: those set before passed already, and pass again.
  violations.push(...scenarioViolations("body.scenarios", scenarios, statuses));
  if (Object.keys(scenarios).length > 0) next.scenarios = scenarios as Scenarios;
  else delete next.scenarios;
  return violations;
}

/**
 * The MSW handlers' `setFaults`: the settings a change gives, as `PATCH /__stub/faults` reads its body (the helper's
 * `faults(change)` sends it); what the admin API would refuse with a 400 throws an Error naming each problem.
 */
export function changedFaults(current: FaultOptions, change: unknown, statuses: Statuses): FaultOptions {
  const next = changeFaults(current, change, statuses);
  if (!Array.isArray(next)) return next;
  const problems = next.map(({ field, description }) => `${field.replace(/^body\./, "")} ${description}`);
  throw new Error(`invalid fault settings: ${problems.join("; ")}`);
}
