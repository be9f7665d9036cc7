/**
 * Faults the stub injects, so that client developers can test their error handling against real answers:
 *
 * - per request, from the caller, a `Prefer` header (RFC 7240, as Prism reads it): `code=503` answers that
 *   documented status, `latency=250` delays the answer;
 * - per run, from the command line: `--faults 503=1%` (seeded), `--latency 20-200`, `--drop 0.5%` (the connection
 *   is destroyed before any answer) and `--rate-limit 20/s` per API key (a token bucket).
 *
 * An injected answer is the interface's error body (with `Retry-After` and RetryInfo for 429 and 503), comes
 * before the operation's handler, and so never changes state. Each is named in the request's log line.
 * @see https://www.rfc-editor.org/rfc/rfc7240
 */
import { ApiError, catalogueError, invalidRequest, type OpenApiDocument } from "@compute-api/contract";
import type { RequestRecord } from "@compute-api/contract/http";
import { bearerToken, reasonOfStatus, specOperations } from "@compute-api/contract/internal";
import { seededRandom } from "@compute-api/fixtures";
import { hashApiKey } from "@compute-api/server";
import type { Request, RequestHandler, Response } from "express";

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
const badPrefer = (description: string) => invalidRequest([{ field: "header.prefer", description, reason: "prefer" }]);

/** The record of the request's log line, kept by the stub's request log in `res.locals`. */
const recordOf = (res: Response): RequestRecord | undefined => (res.locals as { record?: RequestRecord }).record;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What the stub mounts: `beforeValidation` for the run's latency, drops and faults; `afterValidation` for rate
 * limits and `Prefer`. Without `changeable`, each is undefined when the run has nothing for it to do, decided once,
 * so that a run without faults pays nothing for them per request; `changeable` (the admin API) mounts both, and
 * each then looks at the settings of the moment.
 */
export interface Faults {
  beforeValidation: RequestHandler | undefined;
  afterValidation: RequestHandler | undefined;
  /** The settings in force. */
  settings(): FaultOptions;
  /**
   * Replaces the settings, at once for the next request (with `changeable`). A new `seed` starts its sequence
   * again; the rate limit's buckets start full again when the limit changes.
   */
  set(options: FaultOptions): void;
}

/** Creates the fault middleware of a run; `changeable`: its settings may change while it runs (`set`). */
export function createFaults(initial: FaultOptions, { changeable = false }: { changeable?: boolean } = {}): Faults {
  let options = initial;
  let next = seededRandom(options.seed ?? 1);
  const buckets = new Map<string, { tokens: number; at: number }>();
  const runsFaults = (o: FaultOptions) =>
    o.latencyMs !== undefined || Boolean(o.drop) || (o.faults !== undefined && o.faults.length > 0);

  /** The run's faults, on every request to the API: latency, a dropped connection, an injected status. */
  const beforeValidation: RequestHandler = async (req, res, nextHandler) => {
    if (!req.path.startsWith("/v1/") || !runsFaults(options)) return nextHandler();
    const { latencyMs, drop, faults = [] } = options;
    const record = recordOf(res);
    if (latencyMs) {
      const { min, max } = latencyMs;
      const delay = Math.round(min + next() * (max - min));
      if (record) record.fields.latencyMs = delay;
      await sleep(delay);
    }
    if (drop && next() < drop) {
      if (record) record.fields.fault = "drop";
      req.socket.destroy();
      return;
    }
    if (faults.length > 0) {
      let draw = next();
      for (const { status, share } of faults) {
        if (draw < share) {
          if (record) record.fields.fault = String(status);
          return nextHandler(injectedError(status, `--faults ${status}`));
        }
        draw -= share;
      }
    }
    nextHandler();
  };

  /** Per API key and per request, once the key is known and the request valid: the rate limit, then `Prefer`. */
  const limitAndPrefer: RequestHandler = async (req, res, nextHandler) => {
    const record = recordOf(res);
    const rate = options.rateLimit;
    if (rate !== undefined) {
      // A bucket holds a second's worth of requests, and at least one (for rates such as 1/min).
      const capacity = Math.max(1, rate);
      // Buckets are kept by the key's SHA-256, as the store keeps keys: never a key in clear text.
      const token = hashApiKey(bearerToken(req) ?? "");
      const now = performance.now();
      const bucket = buckets.get(token) ?? { tokens: capacity, at: now };
      bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / 1000) * rate);
      bucket.at = now;
      buckets.set(token, bucket);
      if (bucket.tokens < 1) {
        if (record) record.fields.fault = "rate-limit";
        const wait = Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
        return nextHandler(injectedError(429, `too many requests: the limit is ${rate} a second per API key`, wait));
      }
      bucket.tokens -= 1;
    }
    const prefer = req.headers.prefer;
    if (options.prefer === false || prefer === undefined) return nextHandler();
    // Refused rather than ignored: a caller who asked for a fault and got a 200 would not know why.
    const length = Array.isArray(prefer) ? prefer.join(",").length : prefer.length;
    if (length > maxPreferLength)
      return nextHandler(badPrefer(`is ${length} characters long; the stub reads at most ${maxPreferLength}`));
    const preferences = parsePrefer(prefer);
    const applied: string[] = [];
    const latency = preferences.get("latency");
    if (latency !== undefined) {
      if (!/^\d+$/.test(latency) || Number(latency) > maxPreferLatencyMs)
        return nextHandler(badPrefer(`latency must be a whole number of milliseconds up to ${maxPreferLatencyMs}`));
      applied.push(`latency=${latency}`);
    }
    const code = preferences.get("code");
    const statuses = Object.keys(
      (req as Request & { openapi?: { schema?: { responses?: object } } }).openapi?.schema?.responses ?? {},
    );
    if (code !== undefined && !statuses.includes(code)) {
      return nextHandler(badPrefer(`code=${code} is not a status this operation documents (${statuses.join(", ")})`));
    }
    if (code !== undefined) applied.push(`code=${code}`);
    if (applied.length > 0) res.setHeader("Preference-Applied", applied.join(", "));
    if (latency !== undefined) {
      if (record) record.fields.latencyMs = Number(latency) + Number(record.fields.latencyMs ?? 0);
      await sleep(Number(latency));
    }
    // A 2xx asked for is the operation's own answer; any other status is injected, before the handler.
    if (code !== undefined && !code.startsWith("2")) {
      if (record) record.fields.fault = `prefer ${code}`;
      return nextHandler(injectedError(Number(code), `Prefer: code=${code}`));
    }
    nextHandler();
  };

  // Without a rate limit, only a request that sends `Prefer` (and a run that honours it) has anything to do there.
  const afterValidation: RequestHandler = (req, res, nextHandler) =>
    options.rateLimit !== undefined || (options.prefer !== false && req.headers.prefer !== undefined)
      ? limitAndPrefer(req, res, nextHandler)
      : nextHandler();
  return {
    beforeValidation: changeable || runsFaults(options) ? beforeValidation : undefined,
    afterValidation:
      changeable || options.rateLimit !== undefined || options.prefer !== false ? afterValidation : undefined,
    settings: () => structuredClone(options),
    set(changed) {
      if (!changeable) throw new Error("these faults were not created changeable");
      if (changed.seed !== options.seed) next = seededRandom(changed.seed ?? 1);
      if (changed.rateLimit !== options.rateLimit) buckets.clear();
      options = structuredClone(changed);
    },
  };
}

/** The statuses every operation of the spec documents: those `--faults` may inject at any request. */
export function statusesOfEveryOperation(spec: OpenApiDocument): Set<string> {
  const lists = specOperations(spec).map(
    ({ operation }) => new Set(Object.keys((operation.responses as object | undefined) ?? {})),
  );
  return new Set([...(lists[0] ?? [])].filter((status) => lists.every((list) => list.has(status))));
}
