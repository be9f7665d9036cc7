/** Where a resource is: the collections of a project and the resourceName of each resource, as the spec writes them. */
import { describe, expect, it } from "vitest";
import {
  billingAccountName,
  projectCollectionNames,
  projectCollections,
  projectName,
  projectResourceName,
  resourceNameOf,
} from "../src/resource-names.js";
import { resourceTypes } from "../src/search-query.js";

describe("projectCollections", () => {
  it("names every resource type of a project once, the type's collection its plural", () => {
    const types = [...resourceTypes.values()].filter((t) => t !== "billingAccount" && t !== "project");
    expect(Object.values(projectCollections).sort()).toEqual(types.sort());
    for (const collection of projectCollectionNames) expect(collection).toBe(`${projectCollections[collection]}s`);
  });
});

describe("resource names", () => {
  it.each<[string, { given: () => string; want: string }]>([
    ["a billing account", { given: () => billingAccountName("ba-1"), want: "billingAccounts/ba-1" }],
    ["a project", { given: () => projectName("proj-alpha"), want: "projects/proj-alpha" }],
    [
      "a cluster",
      {
        given: () => projectResourceName("proj-alpha", "clusters", "cl-train-01"),
        want: "projects/proj-alpha/clusters/cl-train-01",
      },
    ],
    [
      "a virtual machine",
      { given: () => projectResourceName("p", "virtualMachines", "vm-1"), want: "projects/p/virtualMachines/vm-1" },
    ],
  ])("%s", (_name, { given, want }) => {
    expect(given()).toBe(want);
  });
});

describe("resourceNameOf", () => {
  it.each<[string, { given: [string, { id: string; projectId?: string }]; want: string | undefined }]>([
    ["a billing account", { given: ["billingAccount", { id: "ba-1" }], want: "billingAccounts/ba-1" }],
    ["a project, which is in no project", { given: ["project", { id: "p", projectId: "q" }], want: "projects/p" }],
    ["a disk", { given: ["disk", { id: "d-1", projectId: "p" }], want: "projects/p/disks/d-1" }],
    ["a machine", { given: ["machine", { id: "m", projectId: "p" }], want: "projects/p/machines/m" }],
    ["a volume", { given: ["volume", { id: "v", projectId: "p" }], want: "projects/p/volumes/v" }],
    ["a type search does not know", { given: ["server", { id: "s", projectId: "p" }], want: undefined }],
    ["a collection's name is not a type", { given: ["clusters", { id: "c", projectId: "p" }], want: undefined }],
  ])("%s", (_name, { given, want }) => {
    expect(resourceNameOf(...given)).toBe(want);
  });
});
