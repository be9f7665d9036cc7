import { loadSpec } from "@compute-api/contract";
import { describe, expect, it } from "vitest";
import { createSpecRouteTest } from "../src/spec-routes.js";

describe("createSpecRouteTest", () => {
  const isSpecRoute = createSpecRouteTest(loadSpec());
  it.each([
    ["GET", "/v1/resources/search", true],
    ["HEAD", "/v1/resources/search", true],
    ["get", "/V1/RESOURCES/SEARCH/", true],
    ["PATCH", "/v1/projects/p/cluster-machines/m", true],
    ["PATCH", "/v1/projects//cluster-machines/", true],
    ["POST", "/v1/api-keys", true],
    ["DELETE", "/v1/api-keys", false],
    ["POST", "/v1/api-keys/abc", false],
    ["GET", "/v1/clusters", false],
    ["GET", "/v1/projects/p/cluster-machines/m/extra", false],
  ])("%s %s → %s", (method, path, want) => {
    expect(isSpecRoute(method, path)).toBe(want);
  });
});
