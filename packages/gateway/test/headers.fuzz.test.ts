/** Fuzz of the `Connection` header the gateway reads itself to drop the hop-by-hop headers it names. */
import { describe, expect, it } from "vitest";
import { expectFastTotalParser } from "../../../test/adversarial/support/header-fuzz.js";
import { endToEndHeaders } from "../src/headers.js";

describe("endToEndHeaders", () => {
  it("reads any Connection value in linear time, never throwing, and never forwards Connection itself", () => {
    const given = { authorization: "Bearer k", "x-a": "1", "keep-alive": "timeout=5" };
    expectFastTotalParser(
      (connection) => endToEndHeaders({ ...given, connection }),
      ["close", "keep-alive", "X-A", "authorization", "upgrade"],
      (value, forwarded) => {
        expect(forwarded).not.toHaveProperty("connection");
        expect(forwarded).not.toHaveProperty("keep-alive");
        const named = value
          .toLowerCase()
          .split(",")
          .map((token) => token.trim());
        expect("x-a" in forwarded).toBe(!named.includes("x-a"));
      },
    );
  });
});
