import { describe, expect, it } from "vitest";
import { parseQuery, parseQueryString, queryNames } from "../src/query.js";

describe("parseQueryString", () => {
  const hidden = `query=ok${"&".repeat(1000)}&query=%01%02&evil=1`;

  it("reads every pair, also past node:querystring's default of 1,000 (empty pairs count there)", () => {
    expect(parseQueryString(hidden)).toEqual({ query: ["ok", "\u0001\u0002"], evil: "1" });
    expect(queryNames(hidden)).toEqual(["query", "evil"]);
    expect(parseQuery(hidden).values).toEqual({ query: ["ok", "\u0001\u0002"], evil: "1" });
  });

  it("reads a query string as long as Node's header limit allows", () => {
    const search = Array.from({ length: 3000 }, (_, i) => `p${i}=1`).join("&");
    expect(queryNames(search)).toHaveLength(3000);
  });
});
