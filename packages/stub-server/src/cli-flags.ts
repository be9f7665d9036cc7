/**
 * The values of compute-stub's own flags, each a commander argument parser that refuses a bad value with a message
 * saying what it expects: the run's faults (`--faults`, `--latency`, `--drop`, `--rate-limit`, `--scenario`). The shared flags'
 * parsers (`--cors-origins`, `--api-key`) are @compute-api/runtime/cli's and @compute-api/server/cli's.
 */
import { loadSpec } from "@compute-api/contract";
import { InvalidArgumentError } from "commander";
import { documentedStatuses, parseSteps, type Scenarios, scenarioViolations } from "./fault-scenarios.js";
import { type FaultOptions, maxPreferLatencyMs, statusesOfEveryOperation } from "./faults.js";

/** A share of requests, with its percent sign: `0.5%` → 0.005 (a bare `2` could mean 2 % or 200 %). */
export const percent = (value: string): number => {
  const match = /^(\d+(?:\.\d+)?)%$/.exec(value.trim());
  const share = match ? Number(match[1]) / 100 : NaN;
  if (!(share >= 0 && share <= 1))
    throw new InvalidArgumentError(`'${value}' is not a percentage from 0% to 100% with its % sign, such as 0.5%.`);
  return share;
};

/**
 * `429=2%,500=0.5%,503=1%`: failure statuses every operation documents, each once with its share, 100 % at most in
 * all. (200 is not a fault: `Prefer: code=200` is the operation's own answer.)
 */
export const faultList = (value: string): NonNullable<FaultOptions["faults"]> => {
  const allowed = [...statusesOfEveryOperation(loadSpec())].filter((status) => status !== "200");
  const seen = new Set<string>();
  const faults = value.split(",").map((entry) => {
    const [status = "", share, ...rest] = entry.trim().split("=");
    if (!allowed.includes(status))
      throw new InvalidArgumentError(
        `'${status}' is not a status every operation documents as a failure (${allowed.join(", ")}).`,
      );
    if (share === undefined || rest.length > 0)
      throw new InvalidArgumentError(`'${entry.trim()}' needs a share of requests: ${status}=1%.`);
    if (seen.has(status))
      throw new InvalidArgumentError(`${status} is given twice; give each status once, with its whole share.`);
    seen.add(status);
    return { status: Number(status), share: percent(share) };
  });
  if (faults.reduce((sum, f) => sum + f.share, 0) > 1)
    throw new InvalidArgumentError("the shares add up to more than 100%.");
  return faults;
};

/** `20-200` (uniform) or `50` milliseconds, at most a minute. */
export const latencyRange = (value: string): { min: number; max: number } => {
  const parts = value.split("-").map((n) => (/^\d+$/.test(n.trim()) ? Number(n) : NaN));
  const min = parts[0] ?? NaN;
  const max = parts[1] ?? min;
  if (parts.length > 2 || !(min <= max) || max > maxPreferLatencyMs)
    throw new InvalidArgumentError(
      `'${value}' is not a range of milliseconds such as 20-200 (at most ${maxPreferLatencyMs}).`,
    );
  return { min, max };
};

/** `20/s` or `600/min` → requests a second. */
export const requestRate = (value: string): number => {
  const match = /^(\d+(?:\.\d+)?)\/(s|min)$/.exec(value.trim());
  const rate = match ? Number(match[1]) / (match[2] === "min" ? 60 : 1) : NaN;
  if (!(rate > 0)) throw new InvalidArgumentError(`'${value}' is not a rate such as 20/s or 600/min.`);
  return rate;
};

/**
 * `searchResources=503x2,200`: an operation's scenario (or `*`'s), its steps as `parseSteps` reads them; several
 * separated by `;`, or the flag repeated. Checked against the statuses each operation documents.
 */
export const scenarioList = (value: string, previous: Scenarios = {}): Scenarios => {
  const scenarios: Scenarios = { ...previous };
  for (const entry of value.split(";").filter((part) => part.trim() !== "")) {
    const at = entry.indexOf("=");
    if (at < 0)
      throw new InvalidArgumentError(`'${entry.trim()}' is not a scenario such as searchResources=503x2,200.`);
    try {
      scenarios[entry.slice(0, at).trim()] = parseSteps(entry.slice(at + 1));
    } catch (error) {
      throw new InvalidArgumentError(`${(error as Error).message}.`);
    }
  }
  const [problem] = scenarioViolations("scenario", scenarios, documentedStatuses(loadSpec()));
  if (problem) throw new InvalidArgumentError(`${problem.field.replace(/^scenario\./, "")} ${problem.description}.`);
  return scenarios;
};
