/**
 * The values of compute-stub's own flags, each a commander argument parser that refuses a bad value with a message
 * saying what it expects: the run's faults (`--faults`, `--latency`, `--drop`, `--rate-limit`, `--scenario`). The shared flags'
 * parsers (`--cors-origins`, `--api-key`) are @compute-api/runtime/cli's and @compute-api/server/cli's.
 */
import { loadSpec } from "@compute-api/contract";
import { InvalidArgumentError } from "commander";
import { documentedStatuses, parseSteps, type Scenarios, scenarioViolations } from "./fault-scenarios.js";
import { milliseconds, perSecond, sharePercent, statusShares } from "./fault-values.js";

/** A flag's parser over a value parser of fault-values.ts: its Error becomes commander's InvalidArgumentError. */
const flag =
  <T>(parse: (value: string) => T) =>
  (value: string): T => {
    try {
      return parse(value);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };

/** A share of requests, with its percent sign: `0.5%` → 0.005. */
export const percent = flag(sharePercent);

/** `429=2%,500=0.5%,503=1%`: failure statuses every operation documents, each once with its share. */
export const faultList = flag((value) => statusShares(value, documentedStatuses(loadSpec())));

/** `20-200` (uniform) or `50` milliseconds, at most a minute. */
export const latencyRange = flag(milliseconds);

/** `20/s` or `600/min` → requests a second. */
export const requestRate = flag(perSecond);

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
