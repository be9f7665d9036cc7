import { describe, expect, it } from "vitest";
import { upstreamContractError } from "../src/response-check.js";

describe("upstreamContractError", () => {
  it("is a 502 whose BadRequest detail lists the violations", () => {
    const violations = [{ field: "response.body.id", description: "must be string", reason: "type" }];
    expect(upstreamContractError(violations).toBody()).toEqual({
      code: 502,
      message: "upstream response does not conform to the interface",
      details: [
        { "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: violations },
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "INVALID_UPSTREAM_RESPONSE",
          domain: "compute-api",
        },
      ],
    });
  });
});
