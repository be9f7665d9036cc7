/** Fuzz of the one hand-written reading of `Authorization`: any value up to 16 KiB, read in time, never a throw. */
import { describe, expect, it } from "vitest";
import { expectFastTotalParser } from "../../../test/adversarial/support/header-fuzz.js";
import { bearerToken } from "../src/bearer.js";

describe("bearerToken", () => {
  it("reads any Authorization value in linear time, never throwing; a token is the value after `Bearer `, of token68 characters", () => {
    expectFastTotalParser(
      (authorization) => bearerToken({ headers: { authorization } }),
      ["Bearer ", "bearer ", "Basic ", "cak_"],
      (value, token) => {
        if (token === undefined) return;
        expect(value.slice(7)).toBe(token);
        expect(token).toMatch(/^[A-Za-z0-9._~+/=-]+$/);
      },
    );
  });
});
