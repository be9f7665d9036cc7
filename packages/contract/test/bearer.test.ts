import { describe, expect, it } from "vitest";
import { bearerToken } from "../src/bearer.js";

describe("bearerToken", () => {
  it.each([
    ["Bearer abc-123_x.y~z", "abc-123_x.y~z"],
    ["bearer abc", "abc"],
    ["Bearer ", undefined],
    ["Bearer a b", undefined],
    ["Basic abc", undefined],
    [undefined, undefined],
  ])("%j → %j", (header, want) => {
    expect(bearerToken({ headers: { authorization: header } })).toBe(want);
  });
});
