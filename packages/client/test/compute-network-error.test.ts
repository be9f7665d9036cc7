import { describe, expect, test } from "vitest";
import { ComputeNetworkError } from "../src/index.js";

const where = { baseUrl: "http://127.0.0.1:4010", method: "GET", path: "/v1/resources/search" };
const systemError = (code: unknown, message: string) => Object.assign(new Error(message), { code });

describe("ComputeNetworkError", () => {
  test.each([
    [
      "Node's fetch failed, the code on its cause",
      {
        cause: new TypeError("fetch failed", { cause: systemError("ECONNREFUSED", "connect ECONNREFUSED") }),
        code: "ECONNREFUSED",
      },
    ],
    [
      "the code two causes down",
      {
        cause: new TypeError("fetch failed", {
          cause: new Error("tls", { cause: systemError("CERT_HAS_EXPIRED", "x") }),
        }),
        code: "CERT_HAS_EXPIRED",
      },
    ],
    [
      "an AggregateError of the addresses tried",
      {
        cause: new TypeError("fetch failed", {
          cause: new AggregateError([systemError("ENETUNREACH", "a"), systemError("ECONNREFUSED", "b")]),
        }),
        code: "ENETUNREACH",
      },
    ],
    ["a code that is not a system code is ignored", { cause: systemError(42, "odd"), code: undefined }],
    ["no code at all", { cause: new TypeError("Failed to fetch"), code: undefined }],
  ])("%s", (_, { cause, code }) => {
    const error = new ComputeNetworkError({ ...where, cause });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: "ComputeNetworkError", ...where, code, cause });
    const why = code ?? `${cause.name}: ${cause.message}`;
    expect(error.message).toBe(
      `compute-api client: GET /v1/resources/search got no response from http://127.0.0.1:4010 (${why})`,
    );
  });

  test("a cause that is not an Error is named as text", () => {
    expect(new ComputeNetworkError({ ...where, cause: "socket hang up" }).message).toMatch(/\(socket hang up\)$/);
  });
});
