/**
 * Fault scenarios, as WireMock's scenarios give a test "503 twice, then 200": per operation (or `*`, any operation
 * without one of its own), a list of steps, each the answer of the operation's next `times` calls — a documented
 * failure injected, the operation's own answer, or the connection dropped. Once the steps are used up the operation
 * answers as usual. Calls are counted once a request is routed, authenticated and valid (as `Prefer: code=` is
 * honoured), so a request the stub would refuse anyway neither gets a step nor uses one. Free of Express and of
 * Node built-ins: the stub's fault middleware (faults.ts) and its MSW handlers decide alike (fault-rules.ts).
 */
import { type FieldViolation, type OpenApiDocument, specOperations } from "@compute-api/contract";

/** One step of a scenario: the answer of the operation's next `times` calls. */
export interface ScenarioStep {
  /** A status the operation documents: a failure is injected (the error body), a 2xx is the operation's own answer. */
  status?: number;
  /** The connection is closed before any answer (in MSW, a network error). */
  drop?: true;
  /** How many calls the step answers; absent: every call from then on (the last step only). */
  times?: number;
}

/** Scenarios by operationId; `*` for the calls of every operation that has none of its own. */
export type Scenarios = Record<string, ScenarioStep[]>;

/** The key of the scenario of every operation without one of its own. */
export const anyOperation = "*";

/** The most steps of a scenario. */
export const maxScenarioSteps = 100;
/** The largest `times` of a step. */
export const maxStepTimes = 1_000_000;
/** The largest `Retry-After` the stub injects, in seconds: a day. */
export const maxRetryAfterSeconds = 86_400;

/** The statuses each operation documents, by operationId, and under `*` those every operation documents. */
export function documentedStatuses(spec: OpenApiDocument): Map<string, string[]> {
  const statuses = new Map(
    specOperations(spec).map(({ operation }) => [
      String(operation.operationId),
      Object.keys((operation.responses as object | undefined) ?? {}),
    ]),
  );
  const lists = [...statuses.values()];
  statuses.set(
    anyOperation,
    (lists[0] ?? []).filter((status) => lists.every((list) => list.includes(status))),
  );
  return statuses;
}

/**
 * The steps of a scenario in the flag's syntax: `503x2,200` (503 twice, then the operation's own answer), `dropx1,500`,
 * `429`; the checks of `scenarioViolations` come after. Throws an Error that says what it expects.
 */
export function parseSteps(text: string): ScenarioStep[] {
  return text.split(",").map((entry) => {
    const match = /^\s*(\d{3}|drop)(?:x(\d+))?\s*$/.exec(entry);
    if (!match)
      throw new Error(`'${entry.trim()}' is not a step such as 503, 503x2 (twice) or dropx1; steps: 503x2,200`);
    const [, what = "", times] = match;
    const step: ScenarioStep = what === "drop" ? { drop: true } : { status: Number(what) };
    if (times !== undefined) step.times = Number(times);
    return step;
  });
}

/** The violations of one scenario's steps (`field` names it), given the statuses its operation documents. */
function stepViolations(field: string, steps: unknown, statuses: readonly string[]): FieldViolation[] {
  if (!Array.isArray(steps) || steps.length === 0 || steps.length > maxScenarioSteps)
    return [
      {
        field,
        description: `must be 1 to ${maxScenarioSteps} steps, such as [{"status": 503, "times": 2}, {"status": 200}] or "503x2,200"`,
      },
    ];
  return steps.flatMap((step: unknown, i) => {
    const at = `${field}[${i}]`;
    if (typeof step !== "object" || step === null || Array.isArray(step))
      return [{ field: at, description: 'must be a step: {"status": 503, "times": 2} or {"drop": true}' }];
    const { status, drop, times, ...rest } = step as Record<string, unknown>;
    const violations: FieldViolation[] = Object.keys(rest).map((name) => ({
      field: `${at}.${name}`,
      description: "is not a field of a step (status, drop, times)",
    }));
    if ((drop === true) === (status !== undefined) || (drop !== undefined && drop !== true))
      violations.push({ field: at, description: 'must have either a status or "drop": true' });
    else if (status !== undefined && (typeof status !== "number" || !statuses.includes(String(status))))
      violations.push({
        field: `${at}.status`,
        description: `${JSON.stringify(status)} is not a status the operation documents (${statuses.join(", ")})`,
      });
    if (times === undefined && i < steps.length - 1)
      violations.push({ field: `${at}.times`, description: "is needed on every step but the last" });
    else if (
      times !== undefined &&
      !(Number.isInteger(times) && (times as number) >= 1 && (times as number) <= maxStepTimes)
    )
      violations.push({ field: `${at}.times`, description: `must be a whole number from 1 to ${maxStepTimes}` });
    return violations;
  });
}

/**
 * The violations of scenarios (`field` is where they are, such as `body.scenarios`): an operation of the spec or `*`,
 * each with valid steps. None: they can be set.
 */
export function scenarioViolations(
  field: string,
  scenarios: unknown,
  statuses: ReadonlyMap<string, readonly string[]>,
): FieldViolation[] {
  if (scenarios === null || typeof scenarios !== "object" || Array.isArray(scenarios))
    return [{ field, description: 'must be an object of scenarios by operationId, such as {"searchResources": […]}' }];
  return Object.entries(scenarios).flatMap(([operationId, steps]) => {
    const documented = statuses.get(operationId);
    if (!documented)
      return [
        { field: `${field}.${operationId}`, description: "is not an operationId of the spec, nor * (any operation)" },
      ];
    return stepViolations(`${field}.${operationId}`, steps, documented);
  });
}

/** Where each scenario is: its step, and the calls that step has answered. */
export class ScenarioProgress {
  private readonly at = new Map<string, { step: number; calls: number }>();

  /**
   * The step that answers this call of an operation, counted; undefined when the operation has no scenario (nor
   * `*` one) or its steps are used up.
   */
  next(scenarios: Scenarios | undefined, operationId: string): ScenarioStep | undefined {
    if (!scenarios) return undefined;
    const key = scenarios[operationId] ? operationId : scenarios[anyOperation] ? anyOperation : undefined;
    if (key === undefined) return undefined;
    const steps = scenarios[key] as ScenarioStep[];
    const progress = this.at.get(key) ?? { step: 0, calls: 0 };
    this.at.set(key, progress);
    const step = steps[progress.step];
    if (!step) return undefined;
    if (step.times !== undefined && ++progress.calls >= step.times) {
      progress.step++;
      progress.calls = 0;
    }
    return step;
  }

  /** Every scenario back to its first step. */
  restart(): void {
    this.at.clear();
  }
}

/**
 * Fault options given in code (`createApp`'s, the MSW handlers'), their scenarios and `retryAfterSeconds` checked as
 * the admin API checks them: an Error names each problem.
 */
export function checkedFaultOptions<T extends { scenarios?: Scenarios; retryAfterSeconds?: number }>(
  options: T,
  statuses: ReadonlyMap<string, readonly string[]>,
): T {
  const problems =
    options.scenarios === undefined ? [] : scenarioViolations("faults.scenarios", options.scenarios, statuses);
  const retry = options.retryAfterSeconds;
  if (retry !== undefined && !(Number.isInteger(retry) && retry >= 0 && retry <= maxRetryAfterSeconds))
    problems.push({
      field: "faults.retryAfterSeconds",
      description: `must be a whole number of seconds from 0 to ${maxRetryAfterSeconds}`,
    });
  if (problems.length > 0)
    throw new Error(`invalid faults: ${problems.map((p) => `${p.field} ${p.description}`).join("; ")}`);
  return options;
}
