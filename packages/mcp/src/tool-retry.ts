/**
 * Retries of a tool call answered 429 or 503, by the tool's annotations: a read-only or idempotent tool
 * (`searchResources`, `updateClusterMachine`, whose PATCH sets the values given) is called again, since a repeat
 * cannot do twice what the first call may have done; a tool that is neither (`createApiKey`'s POST) never is. The
 * wait is the service's (`Retry-After`, else the RetryInfo detail; without either, half a second), and bounded:
 * at most {@link retryBounds}' attempts and waiting in all. A longer wait asked for is not taken: the last answer is
 * returned, and its result says when to retry. @compute-api/client's own retry of a GET is off in compute-mcp, so
 * that this is the one retry of every tool.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { McpTool } from "./derive-tools.js";
import { retryAfterSeconds } from "./tool-results.js";

/** How far compute-mcp retries: attempts in all (the first included), and milliseconds of waiting in all. */
export const retryBounds = { attempts: 3, waitMs: 5_000, defaultWaitMs: 500 } as const;

const retryStatuses = new Set([429, 503]);

/** An answer of the client: openapi-fetch's `{ data, error, response }`. */
export interface Answer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** Whether a repeat of the tool's call is harmless, by its annotations. */
export const mayRetry = ({ annotations }: McpTool): boolean => annotations.readOnlyHint || annotations.idempotentHint;

/** The wait the answer asks for, in milliseconds. */
function waitOf({ error, response }: Answer): number {
  const body = typeof error === "object" && error !== null ? (error as { details?: unknown }) : {};
  const details = Array.isArray(body.details) ? (body.details as Record<string, unknown>[]) : [];
  const seconds = retryAfterSeconds(response.headers, details);
  return seconds === undefined ? retryBounds.defaultWaitMs : seconds * 1000;
}

/**
 * Sends the call (`send` makes one request each time) and sends it again while the rules above allow; the last
 * answer and how many attempts were made. A wait ends early, rejecting, when `signal` aborts.
 */
export async function sendWithRetries(
  tool: McpTool,
  send: () => Promise<Answer>,
  signal: AbortSignal,
): Promise<{ answer: Answer; attempts: number }> {
  let answer = await send();
  let attempts = 1;
  let waited = 0;
  while (mayRetry(tool) && retryStatuses.has(answer.response.status) && attempts < retryBounds.attempts) {
    const wait = waitOf(answer);
    if (waited + wait > retryBounds.waitMs) break;
    await sleep(wait, undefined, { signal });
    waited += wait;
    attempts++;
    answer = await send();
  }
  return { answer, attempts };
}
