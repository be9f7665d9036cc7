/**
 * What a conformance run is given, what it reports, and what it does when its options do not say.
 */
import type { OpenApiDocument } from "@compute-api/contract";
import { deadlineMs } from "./http.js";
import type { Latency } from "./pacing.js";
import type { Writes } from "./restore.js";
import type { CheckResult } from "./results.js";

/** What a run is given. */
export interface ConformanceOptions {
  /** The backend, such as `https://staging.example.com`; a path prefix is kept. */
  baseUrl: string;
  /** A key of the backend, sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Cases per generator (default 50), unless `seconds` bounds the run instead. */
  runs?: number;
  /** Generate and send cases for this many seconds. */
  seconds?: number;
  /** Seed of the generators; default a new one, printed, so that a run can be replayed. */
  seed?: number;
  /** Also send schema-valid writes: PATCHes of this machine (restored at the end) and new API keys. */
  writes?: Writes;
  /** Only these operations (operationIds). */
  only?: readonly string[];
  /** Requests a second at most (default 20). */
  rate?: number;
  /** How long one answer may take, in ms (default 10000). */
  timeoutMs?: number;
  /** The spec; default the one of @compute-api/spec. */
  spec?: OpenApiDocument;
  /** Hears the run's progress after each request. */
  onProgress?: (progress: Progress) => void;
}

/** How far a run is. */
export interface Progress {
  requests: number;
  elapsedMs: number;
  /** Checks, by operation, that failed at least once so far. */
  failing: number;
}

/** What a run found. */
export interface Report {
  baseUrl: string;
  seed: number;
  writes: boolean;
  requests: number;
  elapsedMs: number;
  results: CheckResult[];
  latency: Latency[];
  /** What the run did besides checking: what it learned, what it restored, what it could not do. */
  notes: string[];
  /** What makes the checks prove less than they seem to, such as a key that sees nothing; not a failure. */
  warnings: string[];
  passed: boolean;
}

/** What a run does when its options do not say: cases per generator, requests a second, ms an answer may take. */
export const runDefaults = { runs: 50, rate: 20, timeoutMs: deadlineMs } as const;

/** A new seed for the generators (a run prints it, so that it can be replayed). */
export const randomSeed = (): number => Math.floor(Math.random() * 2 ** 31);
