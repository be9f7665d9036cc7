/**
 * The search index on small hand-made data: the scores, order, cap, access and type rules of the spec; and on
 * random data, against a plain reference implementation of those rules.
 */
import { compareCodePoints } from "@compute-api/rules";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SearchEntry, SearchResource } from "../../src/store/search-columns.js";
import { maxResults, SearchIndex, type SearchIndexTuning } from "../../src/store/search-index.js";
import { defaultOverlayLimit } from "../../src/store/search-overlay.js";
import type { ResourceType } from "../../src/types.js";

const volume = (id: string, fields: Record<string, unknown> = {}, projectId = "p1"): SearchResource => ({
  resourceType: "volume",
  resourceName: `projects/${projectId}/volumes/${id}`,
  access: `p:${projectId}`,
  resource: { id, projectId, ...fields },
});

const search = (
  resources: SearchResource[],
  terms: string[],
  options: { type?: ResourceType; access?: string[] } = {},
) =>
  new SearchIndex(resources)
    .search({ terms, type: options.type, canAccess: (a) => (options.access ?? ["p:p1", "p:p2", "b:b1"]).includes(a) })
    .map((h) => [h.entry.resourceName.split("/").pop(), h.score]);

describe("SearchIndex scores", () => {
  const cases: [string, { resource: SearchResource; terms: string[]; score: number | undefined }][] = [
    ["an exact id", { resource: volume("vol-data"), terms: ["vol-data"], score: 100 }],
    ["a prefix of the id", { resource: volume("vol-data"), terms: ["vol"], score: 80 }],
    ["a substring of the id", { resource: volume("vol-data"), terms: ["data"], score: 60 }],
    ["an exact other field", { resource: volume("v1", { state: "ACTIVE" }), terms: ["active"], score: 50 }],
    [
      "a prefix of another field",
      { resource: volume("v1", { nfsServer: "nfs-1.internal" }), terms: ["nfs-1"], score: 40 },
    ],
    [
      "a substring of another field",
      { resource: volume("v1", { nfsServer: "nfs-1.internal" }), terms: ["internal"], score: 30 },
    ],
    ["an item of a string array", { resource: volume("v1", { tags: ["gpu", "fast"] }), terms: ["fast"], score: 50 }],
    ["the resourceName", { resource: volume("v1"), terms: ["projects/p1/volumes"], score: 40 }],
    ["any case", { resource: volume("Vol-Data", { state: "ACTIVE" }), terms: ["vol-data"], score: 100 }],
    ["the best match of a term", { resource: volume("vol", { nfsPath: "vol" }), terms: ["vol"], score: 100 }],
    [
      "the mean of the terms",
      { resource: volume("vol-data", { state: "ACTIVE" }), terms: ["vol-data", "act"], score: 70 },
    ],
    [
      "the mean rounded down",
      { resource: volume("vol-data", { state: "ACTIVE" }), terms: ["data", "active", "ctiv"], score: 46 },
    ],
    ["no match of one term", { resource: volume("vol-data"), terms: ["vol", "absent"], score: undefined }],
    [
      "no string field but strings",
      { resource: volume("v1", { sizeGib: 2048, priceHr: { value: "2048" } }), terms: ["2048"], score: undefined },
    ],
  ];
  it.each(cases)("scores %s", (_name, { resource, terms, score }) => {
    expect(search([resource], terms)[0]?.[1]).toBe(score);
  });

  it("takes a billing account's displayName as its name", () => {
    const account: SearchResource = {
      resourceType: "billingAccount",
      resourceName: "billingAccounts/b1",
      access: "b:b1",
      resource: { id: "b1", displayName: "Research lab" },
    };
    expect(search([account], ["research lab"])).toEqual([["b1", 100]]);
    expect(search([account], ["research"])).toEqual([["b1", 80]]);
    expect(search([account], ["b:b1"])).toEqual([]);
  });
});

describe("SearchIndex order, cap, access and type", () => {
  it("sorts by score, then resourceName in code point order", () => {
    const resources = ["b-x", "B-x", "a-x", "x", "\u{1F600}-x", "\uFFFD-x"].map((id) => volume(id));
    // x is exact (100); the others hold x as a substring (60) and sort by code point: "B" < "a" < "b" < U+FFFD < U+1F600.
    expect(search(resources, ["x"])).toEqual([
      ["x", 100],
      ["B-x", 60],
      ["a-x", 60],
      ["b-x", 60],
      ["\uFFFD-x", 60],
      ["\u{1F600}-x", 60],
    ]);
  });

  it("returns at most 100 results, the best ones", () => {
    const resources = Array.from({ length: 150 }, (_, i) => volume(`vol-${String(i).padStart(3, "0")}`));
    resources.push(volume("vol"), volume("zzz", { nfsPath: "vol" }));
    const hits = search(resources, ["vol"]);
    expect(hits).toHaveLength(100);
    expect(hits[0]).toEqual(["vol", 100]);
    expect(hits.slice(1).every(([, s]) => s === 80)).toBe(true);
    expect(hits[99]).toEqual(["vol-098", 80]);
  });

  it("returns only what the caller may access", () => {
    const resources = [volume("v-1", {}, "p1"), volume("v-2", {}, "p2")];
    expect(search(resources, ["v-"], { access: ["p:p2"] })).toEqual([["v-2", 80]]);
    expect(search(resources, ["v-"], { access: [] })).toEqual([]);
  });

  it("narrows to one type, and with no other term returns every resource of it with score 0", () => {
    const disk: SearchResource = {
      resourceType: "disk",
      resourceName: "projects/p1/disks/d-1",
      access: "p:p1",
      resource: { id: "d-1" },
    };
    const resources = [volume("v-1"), volume("v-2"), disk];
    expect(search(resources, ["1"], { type: "disk" })).toEqual([["d-1", 60]]);
    expect(search(resources, [], { type: "volume" })).toEqual([
      ["v-1", 0],
      ["v-2", 0],
    ]);
  });

  it("sees a resource's new text after refresh", () => {
    const resource = volume("v-1", { state: "CREATING" });
    const index = new SearchIndex([resource]);
    const find = (term: string) => index.search({ terms: [term], canAccess: () => true }).length;
    resource.resource.state = "ACTIVE";
    const entry = index.entryOf(resource.resource);
    if (entry) index.refresh(entry);
    expect([find("creating"), find("active")]).toEqual([0, 1]);
  });
});

/** What search must give, computed the plain way: every resource scored against every term, then sorted. */
function reference(
  resources: SearchResource[],
  terms: string[],
  type: ResourceType | undefined,
  canAccess: (access: string) => boolean,
): [string, number][] {
  const scored: [string, number][] = [];
  const ordered = resources
    .map((r, i) => ({ r, i }))
    .sort((a, b) => compareCodePoints(a.r.resourceName, b.r.resourceName) || a.i - b.i);
  for (const { r } of ordered) {
    if ((type !== undefined && r.resourceType !== type) || !canAccess(r.access)) continue;
    const nameField = r.resourceType === "billingAccount" ? "displayName" : "name";
    const fields: [string, boolean][] = [[r.resourceName.toLowerCase(), false]];
    for (const [key, value] of Object.entries(r.resource)) {
      const primary = key === "id" || key === nameField;
      for (const item of Array.isArray(value) ? value : [value])
        if (typeof item === "string") fields.push([item.toLowerCase(), primary]);
    }
    let sum = 0;
    const matchedAll = terms.every((term) => {
      let best = 0;
      for (const [value, primary] of fields) {
        const s = value === term ? 50 : value.startsWith(term) ? 40 : value.includes(term) ? 30 : 0;
        best = Math.max(best, primary && s > 0 ? s * 2 : s);
      }
      sum += best;
      return best > 0;
    });
    if (matchedAll) scored.push([r.resourceName, terms.length === 0 ? 0 : Math.floor(sum / terms.length)]);
  }
  // A stable sort keeps resourceName order within a score.
  return scored.sort((a, b) => b[1] - a[1]).slice(0, maxResults);
}

describe("SearchIndex against a plain reference", () => {
  // Few letters, so that terms often equal, start or occur in values, and values repeat across resources.
  const text = (max: number) =>
    fc.string({ unit: fc.constantFrom("a", "b", "-", "A", "é", "\u{1F600}"), maxLength: max });
  const types = ["volume", "disk", "billingAccount"] as const;
  const resource = fc
    .record({
      type: fc.constantFrom(...types),
      project: fc.constantFrom("p1", "p2", "p3"),
      id: text(6),
      name: fc.option(text(8), { nil: undefined }),
      state: fc.option(text(5), { nil: undefined }),
      tags: fc.array(text(4), { maxLength: 3 }),
      size: fc.nat(9),
    })
    .map(({ type, project, id, name, state, tags, size }): SearchResource => {
      const fields: Record<string, unknown> = { id, tags, size };
      if (name !== undefined) fields[type === "billingAccount" ? "displayName" : "name"] = name;
      if (state !== undefined) fields.state = state;
      return type === "billingAccount"
        ? { resourceType: type, resourceName: `billingAccounts/${id}`, access: `b:${id}`, resource: fields }
        : {
            resourceType: type,
            resourceName: `projects/${project}/${type}s/${id}`,
            access: `p:${project}`,
            resource: { ...fields, projectId: project },
          };
    });
  const query = fc.record({
    terms: fc.array(
      text(4).map((t) => t.toLowerCase()),
      { maxLength: 3 },
    ),
    type: fc.option(fc.constantFrom(...types), { nil: undefined }),
    access: fc.subarray(["p:p1", "p:p2", "p:p3", "b:a", "b:b", "b:ab", "b:"]),
  });

  // Small blocks and windows put the values in many blocks and the ranks in many windows, as a large data set does;
  // a small overlay is folded into the dictionaries (a vacuum) every few refreshes.
  it.each<[string, SearchIndexTuning]>([
    ["the default sizes", {}],
    ["small blocks, windows and overlay", { blockValues: 3, firstWindow: 1, maxWindow: 8, overlayLimit: 2 }],
  ])("gives the same results, scores and order, before and after refreshes and vacuums, with %s", (_name, tuning) => {
    fc.assert(
      fc.property(
        fc.array(resource, { maxLength: 150 }),
        fc.array(query, { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(), fc.boolean(), text(5)), { maxLength: 8 }),
        (resources, queries, changes) => {
          const index = new SearchIndex(resources, tuning);
          const check = () => {
            for (const { terms, type, access } of queries) {
              if (terms.length === 0 && type === undefined) continue;
              const canAccess = (a: string) => access.includes(a);
              const got = index.search({ terms, type, canAccess }).map((h) => [h.entry.resourceName, h.score]);
              expect(got).toEqual(reference(resources, terms, type, canAccess));
            }
          };
          check();
          // Updates change a field in place, an other field or the name, and refresh the entry.
          for (const [i, primary, value] of changes) {
            const changed = resources[i % Math.max(1, resources.length)];
            if (!changed) continue;
            const nameField = changed.resourceType === "billingAccount" ? "displayName" : "name";
            changed.resource[primary ? nameField : "state"] = value;
            const entry = index.entryOf(changed.resource);
            if (entry) index.refresh(entry);
            expect(index.overlaySize).toBeLessThanOrEqual(tuning.overlayLimit ?? defaultOverlayLimit);
            check();
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps the overlay within its bound over thousands of refreshes, and the results those of the reference", () => {
    // A linear congruential generator: the same changes every run.
    let seed = 3;
    const random = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const words = ["alpha", "beta", "gamma", "delta", "ALPHA-2", "b\u00e9ta"];
    const resources = Array.from({ length: 2000 }, (_, i) =>
      volume(`vol-${i}`, { name: pick(words), state: pick(words) }, pick(["p1", "p2"])),
    );
    const index = new SearchIndex(resources, { blockValues: 4, firstWindow: 8, maxWindow: 64, overlayLimit: 300 });
    const queries = [["alpha"], ["a"], ["et", "vol-1"], ["gamma", "p2"], ["b\u00e9"], ["vol"], ["delta-3"]];
    let vacuums = 0;
    for (let change = 1; change <= 6000; change++) {
      const changed = pick(resources);
      changed.resource[random() < 0.5 ? "name" : "state"] = `${pick(words)}-${change % 7}`;
      const before = index.overlaySize;
      index.refresh(index.entryOf(changed.resource) as SearchEntry);
      if (index.overlaySize < before) vacuums++;
      expect(index.overlaySize).toBeLessThanOrEqual(300);
      if (change % 300 !== 0) continue;
      for (const terms of queries) {
        const canAccess = (a: string) => a === "p:p1";
        const got = index.search({ terms, canAccess }).map((h) => [h.entry.resourceName, h.score]);
        expect(got, `${terms} after ${change} refreshes`).toEqual(reference(resources, terms, undefined, canAccess));
      }
    }
    expect(vacuums).toBeGreaterThanOrEqual(10);
  });
});
