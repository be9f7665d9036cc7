/**
 * What a fault gives a request, decided once for the stub's Express middleware (faults.ts) and for its MSW handlers
 * (msw/create-stub-handlers.ts): a delay, a dropped connection, an injected status with its error body, the rate
 * limit's 429, what a `Prefer` header asks for. Free of Express and of Node built-ins, so that it runs in a browser;
 * each caller applies the decision its own way (a socket destroyed or `HttpResponse.error()`, a header set on `res`
 * or on a `Response`).
 */
import { ApiError, catalogueError, invalidRequest, reasonOfStatus } from "@compute-api/contract";
import { seededRandom } from "@compute-api/fixtures/data";
import { hashApiKey } from "@compute-api/rules";
import { ScenarioProgress, type Scenarios } from "./fault-scenarios.js";

/** The faults of a run. */
export interface FaultOptions {
  /** Statuses injected at random, each with its share of requests (0.01 = 1 %). */
  faults?: { status: number; share: number }[];
  /** Every answer is delayed by a uniform draw from this range, in ms. */
  latencyMs?: { min: number; max: number };
  /** The share of requests whose connection is destroyed before any answer. */
  drop?: number;
  /** Requests a second allowed per API key; over it, 429. */
  rateLimit?: number;
  /** Seed of the random draws, so that a run replays; default 1. */
  seed?: number;
  /** Honour the callers' `Prefer` header (default true). */
  prefer?: boolean;
  /**
   * The `Retry-After` (and RetryInfo) of an injected 429 or 503 — of `faults`, `scenarios` and `Prefer: code=` — in
   * seconds; default 1, and 0 lets a test's retries run at once. The rate limit's 429 says the wait it means.
   */
  retryAfterSeconds?: number;
  /** Scenarios by operationId (`*`: any other operation): the answers of its next calls, in steps (fault-scenarios.ts). */
  scenarios?: Scenarios;
}

/** The longest `Prefer: latency` honoured, in ms, so that no caller can hold a connection for long. */
export const maxPreferLatencyMs = 60_000;

/** An error the stub answers on purpose: its request line names it, and it is not logged as a failure of the stub. */
export class InjectedError extends ApiError {}

/** The answer of an injected status: the error body, and `Retry-After` with RetryInfo for 429 and 503. */
export function injectedError(status: number, why: string, retryAfterSeconds = 1): ApiError {
  const retry = status === 429 || status === 503;
  const { details, headers } = catalogueError(reasonOfStatus(status) ?? "INJECTED", undefined, {
    metadata: { injected: "true" },
    ...(retry ? { retryAfterSeconds } : {}),
  });
  return new InjectedError(status, `${why} (injected by the stub)`, details, headers);
}

/** The longest `Prefer` header read, in characters (bytes, as Node hands headers over); a longer one is answered 400. */
export const maxPreferLength = 1024;

/**
 * Reads one word of a header list element from `start`: characters up to one of `stops` outside a quoted
 * string, with each quoted string unquoted (RFC 9110 §5.6.4: `\x` stands for `x`). An unclosed quote runs to the
 * end. Each character is looked at once, so a header costs time in proportion to its length.
 */
function readWord(text: string, start: number, stops: string): { word: string; end: number } {
  let word = "";
  let i = start;
  while (i < text.length && !stops.includes(text[i]!)) {
    if (text[i] === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++)
        word += text[i] === "\\" && i + 1 < text.length ? text[++i] : text[i];
      i = Math.min(i + 1, text.length);
    } else {
      // A run of plain characters at once, not one concatenation per character.
      let run = i;
      while (run < text.length && text[run] !== '"' && !stops.includes(text[run]!)) run++;
      word += text.slice(i, run);
      i = run;
    }
  }
  return { word, end: i };
}

/**
 * The preferences of a `Prefer` header: lower-case names, unquoted values, the first of a repeated one (RFC 7240 §2);
 * parameters after `;` are skipped. Linear in the header's length (a regular expression over quoted strings was
 * quadratic: 16 KiB of `\"` took 0.2 s).
 */
export function parsePrefer(header: string | string[] | undefined): Map<string, string> {
  const preferences = new Map<string, string>();
  const text = Array.isArray(header) ? header.join(",") : (header ?? "");
  let i = 0;
  while (i < text.length) {
    // preference = token [ BWS "=" BWS word ] *( OWS ";" [ OWS parameter ] ), elements separated by ","
    const name = readWord(text, i, "=;,");
    const value = text[name.end] === "=" ? readWord(text, name.end + 1, ";,") : { word: "", end: name.end };
    i = text[value.end] === ";" ? readWord(text, value.end + 1, ",").end : value.end;
    i++;
    const key = name.word.trim().toLowerCase();
    if (key !== "" && !preferences.has(key)) preferences.set(key, value.word.trim());
  }
  return preferences;
}

/** The violation of a `Prefer` the stub cannot honour. */
export const badPrefer = (description: string) =>
  invalidRequest([{ field: "header.prefer", description, reason: "prefer" }]);

/** A fault outside the handler: an injected status, or (without `error`) the connection dropped; `name` is the log line's. */
export type RunFault = { name: string; error?: ApiError | undefined };

/** What a `Prefer` header gives: a refusal (400), or its `Preference-Applied`, a delay and maybe an injected status. */
export type PreferDecision =
  | { refused: ApiError }
  | { refused?: undefined; applied: string | undefined; delayMs: number | undefined; injected: ApiError | undefined };

/** The decisions of a run's faults, with the settings of the moment and the run's seeded draws and rate buckets. */
export interface FaultRules {
  /** The settings in force (not a copy). */
  options(): FaultOptions;
  /** Whether the run has latency, drops or injected statuses at all. */
  runsFaults(): boolean;
  /** Whether the run's faults apply to a request to `path` (the API's paths, `/v1/…`). */
  appliesTo(path: string): boolean;
  /** The run's delay for the next request, in ms (a draw), or undefined without `latencyMs`. */
  latency(): number | undefined;
  /** The run's drop or injected status for the next request (draws), or undefined. */
  runFault(): RunFault | undefined;
  /**
   * The step of its operation's scenario for this call of an operation, counted: an injected status, a drop, or
   * undefined for the operation's own answer (no scenario, a 2xx step, or the steps used up).
   */
  scenario(operationId: string): RunFault | undefined;
  /** Whether any scenario is set. */
  hasScenarios(): boolean;
  /** The rate limit's 429 for a request with this bearer token (undefined when under the limit, or without one). */
  rateLimit(token: string | undefined): ApiError | undefined;
  /** What a `Prefer` header asks, given the statuses the operation documents; undefined when nothing (or ignored). */
  prefer(header: string | string[] | undefined, documented: () => string[]): PreferDecision | undefined;
  /**
   * Replaces the settings: a new `seed` starts its sequence again; buckets start full when the limit changes; every
   * scenario starts again from its first step.
   */
  set(options: FaultOptions): void;
}

/** The decisions of a run's faults, from its settings. */
export function createFaultRules(initial: FaultOptions): FaultRules {
  let options = initial;
  let next = seededRandom(options.seed ?? 1);
  const buckets = new Map<string, { tokens: number; at: number }>();
  const progress = new ScenarioProgress();
  const retryAfter = () => options.retryAfterSeconds ?? 1;
  const runsFaults = () =>
    options.latencyMs !== undefined ||
    Boolean(options.drop) ||
    (options.faults !== undefined && options.faults.length > 0);
  return {
    options: () => options,
    runsFaults,
    appliesTo: (path) => path.startsWith("/v1/") && runsFaults(),
    latency() {
      if (!options.latencyMs) return undefined;
      const { min, max } = options.latencyMs;
      return Math.round(min + next() * (max - min));
    },
    runFault() {
      const { drop, faults = [] } = options;
      if (drop && next() < drop) return { name: "drop" };
      if (faults.length > 0) {
        let draw = next();
        for (const { status, share } of faults) {
          if (draw < share)
            return { name: String(status), error: injectedError(status, `--faults ${status}`, retryAfter()) };
          draw -= share;
        }
      }
      return undefined;
    },
    scenario(operationId) {
      const step = progress.next(options.scenarios, operationId);
      if (step?.drop) return { name: "scenario drop" };
      if (step?.status === undefined || step.status < 300) return undefined;
      const why = `the scenario of ${operationId in (options.scenarios ?? {}) ? operationId : "every operation"}`;
      return { name: `scenario ${step.status}`, error: injectedError(step.status, why, retryAfter()) };
    },
    hasScenarios: () => options.scenarios !== undefined && Object.keys(options.scenarios).length > 0,
    rateLimit(bearer) {
      const rate = options.rateLimit;
      if (rate === undefined) return undefined;
      // A bucket holds a second's worth of requests, and at least one (for rates such as 1/min).
      const capacity = Math.max(1, rate);
      // Buckets are kept by the key's SHA-256, as the store keeps keys: never a key in clear text.
      const token = hashApiKey(bearer ?? "");
      const now = performance.now();
      const bucket = buckets.get(token) ?? { tokens: capacity, at: now };
      bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / 1000) * rate);
      bucket.at = now;
      buckets.set(token, bucket);
      if (bucket.tokens < 1) {
        const wait = Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
        return injectedError(429, `too many requests: the limit is ${rate} a second per API key`, wait);
      }
      bucket.tokens -= 1;
      return undefined;
    },
    prefer: (header, documented) => preferOf(options, header, documented),
    set(changed) {
      if (changed.seed !== options.seed) next = seededRandom(changed.seed ?? 1);
      if (changed.rateLimit !== options.rateLimit) buckets.clear();
      progress.restart();
      options = structuredClone(changed);
    },
  };
}

/** What a `Prefer` header asks under these settings, given what the operation documents (`FaultRules.prefer`). */
function preferOf(
  options: FaultOptions,
  header: string | string[] | undefined,
  documented: () => string[],
): PreferDecision | undefined {
  if (options.prefer === false || header === undefined) return undefined;
  // Refused rather than ignored: a caller who asked for a fault and got a 200 would not know why.
  const length = Array.isArray(header) ? header.join(",").length : header.length;
  if (length > maxPreferLength)
    return { refused: badPrefer(`is ${length} characters long; the stub reads at most ${maxPreferLength}`) };
  const preferences = parsePrefer(header);
  const applied: string[] = [];
  const latency = preferences.get("latency");
  if (latency !== undefined) {
    if (!/^\d+$/.test(latency) || Number(latency) > maxPreferLatencyMs)
      return { refused: badPrefer(`latency must be a whole number of milliseconds up to ${maxPreferLatencyMs}`) };
    applied.push(`latency=${latency}`);
  }
  const code = preferences.get("code");
  if (code !== undefined) {
    const statuses = documented();
    if (!statuses.includes(code))
      return {
        refused: badPrefer(`code=${code} is not a status this operation documents (${statuses.join(", ")})`),
      };
    applied.push(`code=${code}`);
  }
  return {
    applied: applied.length > 0 ? applied.join(", ") : undefined,
    delayMs: latency === undefined ? undefined : Number(latency),
    // A 2xx asked for is the operation's own answer; any other status is injected, before the handler.
    injected:
      code !== undefined && !code.startsWith("2")
        ? injectedError(Number(code), `Prefer: code=${code}`, options.retryAfterSeconds ?? 1)
        : undefined,
  };
}
