import { parse as nodeQueryParse } from "node:querystring";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseQuery, parseQueryString, webQueryParse } from "../src/query.js";

describe("parseQueryString", () => {
  const hidden = `query=ok${"&".repeat(1000)}&query=%01%02&evil=1`;

  it("reads every pair, also past node:querystring's default of 1,000 (empty pairs count there)", () => {
    expect(parseQueryString(hidden)).toEqual({ query: ["ok", "\u0001\u0002"], evil: "1" });
    expect(parseQuery(hidden).names).toEqual(["query", "evil"]);
    expect(parseQuery(hidden).values).toEqual({ query: ["ok", "\u0001\u0002"], evil: "1" });
  });

  it("reads a query string as long as Node's header limit allows", () => {
    const search = Array.from({ length: 3000 }, (_, i) => `p${i}=1`).join("&");
    expect(parseQuery(search).names).toHaveLength(3000);
  });
});

describe("webQueryParse (the parser where there is no Node: a browser, MSW's service worker)", () => {
  const node = (search: string) => Object.entries(nodeQueryParse(search, undefined, undefined, { maxKeys: 0 }));
  const web = (search: string) => Object.entries(webQueryParse(search));

  it.each([
    ["a repeated name", "query=a&query=b&query=c"],
    ["plus signs and escapes", "q=a+b%2Bc%20d"],
    ["malformed escapes", "q=%ZZ%E2%82%4&%=1"],
    ["empty pairs and names", "&&=1&a&b=&"],
    ["a leading question mark", "?q=1"],
    ["brackets", "a%5Bb%5D=1&[x]=2"],
    ["1,000 empty pairs before a name", `${"&".repeat(1000)}page=2`],
  ])("reads %s as node:querystring does", (_, search) => {
    expect(web(search)).toEqual(node(search));
  });

  it("reads any ASCII query string as node:querystring does (property)", () => {
    const part = fc.constantFrom(
      "a",
      "b",
      "=",
      "&",
      "%",
      "2",
      "B",
      "f",
      "+",
      " ",
      "%ZZ",
      "%E2%82",
      "%C3%A9",
      "[",
      "?",
      "#",
      ";",
      "__proto__",
      "%26",
      "%3D",
    );
    fc.assert(
      fc.property(
        fc.array(fc.oneof(part, fc.string({ unit: "binary-ascii", maxLength: 3 })), { maxLength: 12 }),
        (parts) => {
          const search = parts.join("");
          expect(web(search)).toEqual(node(search));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
