/**
 * Fuzz of the request headers the compiled contract reads itself: `Content-Type` (its media type, matched
 * against the operation's) and `Authorization` (the bearer security check). Any value up to 16 KiB is read in
 * time and refused with 401 or 415 — never a throw.
 */
import { describe, expect, it } from "vitest";
import { expectFastTotalParser } from "../../../test/adversarial/support/header-fuzz.js";
import { ApiError } from "../src/api-error.js";
import { compileContract } from "../src/compile-contract.js";
import { mediaTypeOf } from "../src/media-types.js";

const contract = compileContract();
const machine = "/v1/projects/proj-alpha/cluster-machines/cm-alpha-01";

/** The status the contract answers a PATCH with these headers and a valid body (0: it conforms). */
function statusOf(headers: Record<string, string>): number {
  const match = contract.route("PATCH", machine);
  if (match instanceof ApiError) throw match;
  return contract.checkRequest(match, { url: machine, headers, body: { state: "FAILED" } })?.status ?? 0;
}

describe("mediaTypeOf", () => {
  it("reads any Content-Type in linear time, never throwing, to a lower-case type without parameters", () => {
    expectFastTotalParser(mediaTypeOf, ["application/json", "; charset=", "+json", "*/*"], (_value, type) => {
      expect(type).toBe(type?.toLowerCase().trim());
      expect(type).not.toContain(";");
    });
  });
});

describe("checkRequest", () => {
  it("answers any Content-Type in linear time with 415 or as JSON, never throwing", () => {
    expectFastTotalParser(
      (type) => statusOf({ authorization: "Bearer k", "content-type": type }),
      ["application/json", "; charset=utf-8", "+json"],
      (value, status) => {
        expect(status).toBe(mediaTypeOf(value) === "application/json" ? 0 : 415);
      },
    );
  });

  it("answers any Authorization in linear time with 401 or lets it through, never throwing", () => {
    expectFastTotalParser(
      (authorization) => statusOf({ authorization, "content-type": "application/json" }),
      ["Bearer ", "bearer", "Basic "],
      (_value, status) => {
        expect([0, 401]).toContain(status);
      },
    );
  });
});
