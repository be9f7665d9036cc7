/**
 * Options whose value is checked once every name (flag, variable, old name) has been read: required ones, URLs and
 * secrets. Their messages name where the value came from (`--upstream`, `COMPUTE_GATEWAY_UPSTREAM`) and never quote
 * a secret; a secret given as a flag gets one warning line, since the command line shows in `ps` and in histories.
 */
import { baseUrlProblem, type UrlForm, urlSchemeProblem } from "@compute-api/client/base-url";
import { type Command, Option } from "commander";
import { usageError } from "./cli-env.js";
import { defaultText } from "./cli-help.js";
import { sourceOf } from "./cli-renames.js";

/** What is checked of an option after parsing. */
interface Checks {
  /** Its value is required; this says what it is, after `is required: `. */
  required?: string;
  /** What is wrong with its value, as a phrase after its name; undefined when nothing is. */
  problem?: (value: string) => string | undefined;
  /** It is a secret: never quoted, and a warning when it is given as a flag. */
  secret?: boolean;
}

const checks = new WeakMap<Option, Checks>();

function mark<T extends Option>(option: T, more: Checks): T {
  checks.set(option, { ...checks.get(option), ...more });
  return option;
}

/** Makes an option required (`what` it is follows the message); its help says `(default: none: required)`. */
export function required<T extends Option>(option: T, what: string): T {
  return mark(defaultText(option, "none: required"), { required: what });
}

/** A URL flag of the service (`--base-url`, `--upstream`): http(s), its origin or a path prefix, not ending in /v1. */
export function serviceUrlOption(flags: string, description: string): Option {
  return mark(new Option(flags, description), { problem: baseUrlProblem });
}

/** A URL flag of one of `form`'s schemes (`--database-url`: postgres:// or postgresql://). */
export function urlOption(flags: string, description: string, form: UrlForm): Option {
  return mark(new Option(flags, description), { problem: (value) => urlSchemeProblem(value, form) });
}

/** What an API key may hold: the form the contract accepts in `Authorization: Bearer <key>`. */
const keyProblem = (value: string): string | undefined =>
  /^[A-Za-z0-9._~+/=-]+$/.test(value) ? undefined : "may hold only letters, digits and . _ ~ + / = -";

/** A secret flag (`--admin-token`, `--auth-token`): never quoted; `bearer`: it must be sendable as a bearer token. */
export function secretOption(flags: string, description: string, { bearer = false } = {}): Option {
  return mark(new Option(flags, description), { secret: true, ...(bearer ? { problem: keyProblem } : {}) });
}

/** `--api-key <key>` (COMPUTE_API_KEY), the same on every command that takes a key. */
export function apiKeyOption(description: string): Option {
  return secretOption("--api-key <key>", description, { bearer: true });
}

/**
 * After parsing (and the old names): a usage error for a required option without a value and for a value with a
 * problem; one warning line on `warn` for each secret given as a flag.
 */
export function checkValues(command: Command, warn: (text: string) => void): void {
  for (const option of command.options) {
    const checked = checks.get(option);
    if (!checked) continue;
    const attribute = option.attributeName();
    const value: unknown = command.getOptionValue(attribute);
    if (value === undefined || value === "") {
      if (checked.required)
        usageError(command, `${option.long} (or ${option.envVar}) is required: ${checked.required}`);
      continue;
    }
    const problem = checked.problem?.(String(value));
    if (problem) usageError(command, `${sourceOf(command, option.long!)} ${problem}`);
    if (checked.secret && command.getOptionValueSource(attribute) === "cli")
      warn(
        `${command.name()}: warning: ${option.long} on the command line shows in ps and in shell history; prefer ${option.envVar}\n`,
      );
  }
}
