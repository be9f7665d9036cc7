/**
 * Sending a run's requests one at a time, paced to a rate, each timed by operation and counted; an error (a
 * dropped connection, no answer in time) becomes an answer of status 0, which only not_a_server_error judges.
 * An error that says the backend cannot be connected to at all is kept, so that the run can stop.
 */
import type { Agent } from "node:http";
import { type Answer, type RawRequest, send } from "./http.js";

/** Response times of an operation, in ms. */
export interface Latency {
  operationId: string;
  requests: number;
  p50: number;
  p99: number;
}

/** Where and how fast a run sends. */
export interface PacingOptions {
  baseUrl: string;
  /** Requests a second at most. */
  rate: number;
  /** How long one answer may take, in ms. */
  timeoutMs: number;
  /** The kept-alive connections to send on; the caller destroys it. */
  agent: Agent;
}

/** A paced sender and what it has counted. */
export interface Pacing {
  /** Sends the request of an operation once its turn comes; never rejects. */
  exchange(operationId: string, request: RawRequest): Promise<Answer>;
  /** Requests sent so far. */
  readonly requests: number;
  /** Why the backend could not be connected to, when the last request could not (refused, no such host, …). */
  readonly unreachable: string | undefined;
  /** Response times of each of the operations, in their order. */
  latency(operationIds: readonly string[]): Latency[];
}

/** Error codes that say no connection could be made, rather than that a request failed on one. */
const unreachableCodes = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
]);

/** The p-th percentile of values sorted in ascending order. */
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

/** A sender of one request at a time, at most `rate` a second. */
export function createPacing(options: PacingOptions): Pacing {
  const interval = 1000 / options.rate;
  let requests = 0;
  let nextAt = 0;
  let unreachable: string | undefined;
  const durations = new Map<string, number[]>();
  return {
    async exchange(operationId, request) {
      const wait = nextAt - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      nextAt = Math.max(performance.now(), nextAt) + interval;
      const at = performance.now();
      unreachable = undefined;
      const answer = await send(options.baseUrl, request, options.timeoutMs, options.agent).catch(
        (error: Error & { code?: string }): Answer => {
          if (unreachableCodes.has(error.code ?? "")) unreachable = error.message;
          return { status: 0, headers: {}, text: `no answer: ${error.message}`, json: undefined };
        },
      );
      const list = durations.get(operationId) ?? [];
      list.push(performance.now() - at);
      durations.set(operationId, list);
      requests++;
      return answer;
    },
    get requests() {
      return requests;
    },
    get unreachable() {
      return unreachable;
    },
    latency: (operationIds) =>
      operationIds.map((operationId) => {
        const sorted = [...(durations.get(operationId) ?? [])].sort((a, b) => a - b);
        return { operationId, requests: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
      }),
  };
}

/** How a run sends one request of an operation. */
export type Exchange = Pacing["exchange"];
