/**
 * What a client is answered when the database fails it, in one place for both adapters (and so for every handler
 * and for authenticate): the database cannot be reached, or went away → 503 with Retry-After; a lock not had in
 * lock_timeout → 503 with Retry-After; a statement over statement_timeout or cancelled → 504. Anything else (a bug,
 * a constraint the caller handles, such as createApiKey's 23505) is passed on unchanged. The driver's error is
 * the answer's `cause`, for the log: never its message, nor the database's address, in a body.
 */
import { ApiError, catalogueError, dependencyUnavailable } from "@compute-api/contract";
import { sqlState } from "./database.js";

/** SQLSTATEs of a server that is going away or cannot take the connection, besides class 08 (connection exception). */
const unavailableStates = new Set([
  "57P01", // admin_shutdown: pg_terminate_backend, or a fast or smart shutdown
  "57P02", // crash_shutdown: another backend crashed, or an immediate shutdown
  "57P03", // cannot_connect_now: starting up, shutting down, in recovery
  "53300", // too_many_connections
]);
const lockNotAvailable = "55P03";
const queryCanceled = "57014";

/** Node's codes of a connection that could not be made or broke. */
const networkCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * node-postgres gives these failures no code, only a message: a connection that ended ("Connection terminated
 * unexpectedly", "… due to connection timeout"), a client whose connection broke ("… is not queryable"), and the
 * pool's wait for a connection that timed out ("timeout exceeded when trying to connect").
 */
const driverMessages = /^Connection terminated|is not queryable$|^timeout exceeded when trying to connect$/;

/** Whether the error says the database cannot be reached, or stopped serving this connection. */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const state = sqlState(error);
  if (state !== undefined && (state.startsWith("08") || unavailableStates.has(state))) return true;
  if (state !== undefined && networkCodes.has(state)) return true;
  // Connecting to a name with several addresses fails with an AggregateError of each address's error.
  if (error instanceof AggregateError && error.errors.some(isUnavailable)) return true;
  return driverMessages.test(error.message);
}

/** 503: the database is out of reach; try again in a second (the server kit's answer to a dependency's failure). */
export function databaseUnavailable(cause: unknown): ApiError {
  return withCause(dependencyUnavailable(), cause);
}

/** 503: what the request changes is held by another one for longer than lock_timeout; try again shortly. */
export function resourceBusy(cause: unknown): ApiError {
  return withCause(
    catalogueError("UNAVAILABLE", "service unavailable: the resource is busy, try again later", {
      retryAfterSeconds: 1,
    }),
    cause,
  );
}

/** 504: the statement ran past statement_timeout, or was cancelled because the request's signal fired. */
export function statementCancelled(cause: unknown): ApiError {
  return withCause(catalogueError("DEADLINE_EXCEEDED", "deadline exceeded: the request took too long"), cause);
}

/**
 * The answer to a database failure: an ApiError for the failures of availability and time above, with the
 * driver's error as its cause; the error itself for anything else (an ApiError included).
 */
export function mapDatabaseError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  const state = sqlState(error);
  if (state === lockNotAvailable) return resourceBusy(error);
  if (state === queryCanceled) return statementCancelled(error);
  if (isUnavailable(error)) return databaseUnavailable(error);
  return error;
}

/** Runs `work` and rethrows what it throws as mapDatabaseError maps it. */
export async function mappingErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw mapDatabaseError(error);
  }
}

/** The error of a call whose signal has fired: a 504 (the server has answered the request already, or no one waits). */
export function abortedError(signal: AbortSignal): ApiError {
  return statementCancelled(signal.reason);
}

function withCause(error: ApiError, cause: unknown): ApiError {
  return Object.assign(error, { cause });
}
