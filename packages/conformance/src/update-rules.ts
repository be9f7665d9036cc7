/**
 * What the PATCH's description states of its answer, judged against the machine as the run last saw it:
 * `priceHr` normalized (price_normalization), and the whole machine with the fields sent set and the others as
 * they were (partial_update). The run keeps the machine it writes to: read through search before the run, then
 * each 200's answer.
 * @see openapi/paths/v1_projects_{projectId}_cluster-machines_{id}.yaml
 */
import { isDeepStrictEqual } from "node:util";
import { compareDecimals, isDecimal, normalizeDecimal } from "@compute-api/decimal";
import type { Verdicts } from "./checks.js";
import type { Answer } from "./http.js";

/** A machine as a backend answers it. */
export type AnsweredMachine = Record<string, unknown>;

/** The machine a run writes to, as it last saw it, and the fields of a ClusterMachine the spec lists. */
export interface MachineModel {
  machine: AnsweredMachine;
  fields: readonly string[];
}

const priceOf = (machine: unknown) => (machine as { priceHr?: { value?: unknown } } | undefined)?.priceHr?.value;

/** price_normalization on a PATCH that sets priceHr and answered 200: the answer's price is the sent one normalized. */
export function priceVerdict(sent: string, answer: Answer): string | null {
  const want = normalizeDecimal(sent);
  const got = priceOf(answer.json);
  return got === want ? null : `priceHr ${JSON.stringify(sent)} answered as ${JSON.stringify(got)}, not "${want}"`;
}

/** The fields of `machine` that differ from `want`, among `fields`, for a message. */
export function differences(machine: AnsweredMachine, want: AnsweredMachine, fields: readonly string[]): string[] {
  return fields
    .filter((f) => !isDeepStrictEqual(machine[f], want[f]))
    .map((f) => `${f} ${JSON.stringify(machine[f]) ?? "absent"}, not ${JSON.stringify(want[f]) ?? "absent"}`);
}

/**
 * price_normalization and partial_update on the answer to a PATCH of the model's machine; a 200 becomes the
 * model's machine. Other statuses are the response checks' to judge.
 */
export function patchVerdicts(body: Record<string, unknown>, answer: Answer, model: MachineModel): Verdicts {
  if (answer.status !== 200 || typeof answer.json !== "object" || answer.json === null) return {};
  const machine = answer.json as AnsweredMachine;
  const sentPrice = priceOf(body);
  const want = { ...model.machine, ...body };
  // A field the run has not seen yet (search may list less of a machine than a PATCH answers) is not judged.
  const fields = model.fields.filter((f) => f in want && (f !== "priceHr" || sentPrice === undefined));
  const wrong = differences(machine, want, fields);
  if (typeof sentPrice === "string") {
    const got = priceOf(machine);
    if (typeof got !== "string" || !isDecimal(got) || compareDecimals(got, sentPrice) !== 0)
      wrong.push(`priceHr ${JSON.stringify(got)}, not ${sentPrice}`);
  }
  // What the answer leaves out is kept as it was: the model follows the backend, not its mistakes twice over.
  model.machine = { ...model.machine, ...machine };
  return {
    partial_update: wrong.length === 0 ? null : `the answer has ${wrong.slice(0, 3).join("; ")}`,
    ...(typeof sentPrice === "string" ? { price_normalization: priceVerdict(sentPrice, answer) } : {}),
  };
}
