/** A project's resourceCount: the resources of its collections in it. */
import { describe, expect, it } from "vitest";
import { type ProjectResources, projectResourceCounts } from "../src/resource-count.js";

describe("projectResourceCounts", () => {
  it.each<[string, { given: ProjectResources; want: [string, number][] }]>([
    ["no resources", { given: {}, want: [] }],
    ["empty collections", { given: { clusters: [], volumes: [] }, want: [] }],
    [
      "each collection counts",
      {
        given: {
          clusters: [{ projectId: "a" }],
          disks: [{ projectId: "a" }],
          images: [{ projectId: "a" }],
          machines: [{ projectId: "a" }],
          networks: [{ projectId: "a" }],
          virtualMachines: [{ projectId: "a" }],
          volumes: [{ projectId: "a" }],
        },
        want: [["a", 7]],
      },
    ],
    [
      "by project",
      {
        given: { clusters: [{ projectId: "a" }, { projectId: "b" }], volumes: [{ projectId: "b" }] },
        want: [
          ["a", 1],
          ["b", 2],
        ],
      },
    ],
  ])("%s", (_name, { given, want }) => {
    expect([...projectResourceCounts(given)].sort()).toEqual(want);
  });

  it("counts nothing but the collections (billing accounts and projects are not a project's resources)", () => {
    const data = { projects: [{ projectId: "a" }], billingAccounts: [{ projectId: "a" }], disks: [{ projectId: "a" }] };
    expect(projectResourceCounts(data)).toEqual(new Map([["a", 1]]));
  });
});
