/** What search reads of a resource: its id and name as primary values, its other top-level strings and its name. */
import { describe, expect, it } from "vitest";
import { searchValues, visitSearchFields } from "../src/search-fields.js";
import type { ResourceType } from "../src/search-query.js";

type Given = { type: ResourceType; name: string; resource: Record<string, unknown> };

describe("searchValues", () => {
  it.each<[string, { given: Given; want: { primary: string[]; other: string[] } }]>([
    [
      "id and name are primary, lowercased; the resourceName is another value",
      {
        given: { type: "cluster", name: "projects/p/clusters/CL-1", resource: { id: "CL-1", name: "Train" } },
        want: { primary: ["cl-1", "train"], other: ["projects/p/clusters/cl-1"] },
      },
    ],
    [
      "a billing account's name is its displayName",
      {
        given: {
          type: "billingAccount",
          name: "billingAccounts/ba",
          resource: { id: "ba", name: "ignored-as-name", displayName: "Main" },
        },
        want: { primary: ["ba", "main"], other: ["billingaccounts/ba", "ignored-as-name"] },
      },
    ],
    [
      "string arrays are read item by item, other values not at all",
      {
        given: {
          type: "virtualMachine",
          name: "projects/p/virtualMachines/vm",
          resource: {
            id: "vm",
            tags: ["GPU", 3, "edge"],
            cpuCores: 8,
            priceHr: { value: "1" },
            machines: [{ id: "nested" }],
          },
        },
        want: { primary: ["vm"], other: ["projects/p/virtualmachines/vm", "gpu", "edge"] },
      },
    ],
    [
      "a value repeated is kept once per kind",
      {
        given: { type: "disk", name: "projects/p/disks/d", resource: { id: "d", name: "d", zone: "x", region: "x" } },
        want: { primary: ["d"], other: ["projects/p/disks/d", "x"] },
      },
    ],
  ])("%s", (_name, { given, want }) => {
    const values = searchValues(given.type, given.name, given.resource);
    expect({ primary: [...values.primary], other: [...values.other] }).toEqual(want);
  });
});

describe("visitSearchFields", () => {
  it.each<[string, { given: Given; want: [string, boolean][] }]>([
    [
      "visits the values as they are, in order, the resourceName first, repeats included",
      {
        given: { type: "image", name: "projects/p/images/Img", resource: { id: "Img", name: "Img", os: "Linux" } },
        want: [
          ["projects/p/images/Img", false],
          ["Img", true],
          ["Img", true],
          ["Linux", false],
        ],
      },
    ],
    [
      "reads own properties only",
      {
        given: {
          type: "project",
          name: "projects/p",
          resource: Object.assign(Object.create({ inherited: "no" }) as object, { id: "p" }),
        },
        want: [
          ["projects/p", false],
          ["p", true],
        ],
      },
    ],
  ])("%s", (_name, { given, want }) => {
    const seen: [string, boolean][] = [];
    visitSearchFields(given.type, given.name, given.resource, (value, primary) => seen.push([value, primary]));
    expect(seen).toEqual(want);
  });
});
