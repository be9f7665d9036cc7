/** What a client is answered for each failure of the database: 503 with Retry-After, 504, or the error as it is. */
import { ApiError } from "@compute-api/contract";
import { describe, expect, it } from "vitest";
import { mapDatabaseError } from "../../src/database/database-errors.js";

/** An error as node-postgres or Node gives it: a message and a code (SQLSTATE, or Node's errno name). */
const failure = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

const unavailable = { status: 503, retryAfter: "1", reason: "UNAVAILABLE" };
const deadline = { status: 504, retryAfter: undefined, reason: "DEADLINE_EXCEEDED" };

describe("mapDatabaseError", () => {
  it.each([
    ["refused", failure("connect ECONNREFUSED 10.1.2.3:5432", "ECONNREFUSED"), unavailable],
    ["reset", failure("read ECONNRESET", "ECONNRESET"), unavailable],
    ["a name that does not resolve", failure("getaddrinfo ENOTFOUND db.internal", "ENOTFOUND"), unavailable],
    [
      "every address refused",
      new AggregateError([failure("connect ECONNREFUSED ::1:5432", "ECONNREFUSED")], "connect failed"),
      unavailable,
    ],
    ["terminated (57P01)", failure("terminating connection due to administrator command", "57P01"), unavailable],
    [
      "crash shutdown (57P02)",
      failure("terminating connection because of crash of another server process", "57P02"),
      unavailable,
    ],
    ["starting up (57P03)", failure("the database system is starting up", "57P03"), unavailable],
    ["too many connections (53300)", failure("sorry, too many clients already", "53300"), unavailable],
    ["class 08", failure("connection failure", "08006"), unavailable],
    ["Connection terminated unexpectedly", failure("Connection terminated unexpectedly"), unavailable],
    ["connection timeout", failure("Connection terminated due to connection timeout"), unavailable],
    ["the pool's wait", failure("timeout exceeded when trying to connect"), unavailable],
    ["a broken client", failure("Client has encountered a connection error and is not queryable"), unavailable],
    ["lock_timeout (55P03)", failure("canceling statement due to lock timeout", "55P03"), unavailable],
    ["statement_timeout (57014)", failure("canceling statement due to statement timeout", "57014"), deadline],
  ])("%s → %o", (_name, error, want) => {
    const answer = mapDatabaseError(error);
    expect(answer).toBeInstanceOf(ApiError);
    const { status, headers, details, message } = answer as ApiError;
    expect({
      status,
      retryAfter: headers["Retry-After"],
      reason: (details[0] as { reason?: string } | undefined)?.reason,
    }).toEqual(want);
    // The driver's message and the database's address stay in the log (the cause), never in the body.
    expect((answer as Error).cause).toBe(error);
    expect(message).not.toMatch(/10\.1\.2\.3|5432|db\.internal|terminat|ECONN|timeout/);
  });

  it.each([
    ["a unique violation, which createApiKey answers 409", failure("duplicate key value", "23505")],
    ["a bug in the SQL", failure('syntax error at or near "SELEC"', "42601")],
    ["a division by zero", failure("division by zero", "22012")],
    ["something not an error", "a string"],
  ])("passes %s on unchanged", (_name, error) => {
    expect(mapDatabaseError(error)).toBe(error);
  });

  it("passes an ApiError on unchanged", () => {
    const error = new ApiError(404, "not found");
    expect(mapDatabaseError(error)).toBe(error);
  });
});
