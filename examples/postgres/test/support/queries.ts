/**
 * Search queries drawn from a data set's own values, for the differential tests: whole values, prefixes,
 * substrings, changed case, two to eight terms, type filters, the terms that trip SQL up (`%`, `_`, `\`, Unicode),
 * and queries at the limit of 8 terms and past it.
 */

import type { Fixtures } from "@compute-api/fixtures";
import { seededRandom } from "@compute-api/fixtures";
import { resourceTypes } from "@compute-api/rules";

/** A seeded pseudo-random sequence in [0, 1) (the stub's mulberry32), so that a failure replays. */
export const seeded = seededRandom;

/** Terms no data set is likely to hold as is, each with a reason to be tried. */
export const awkwardQueries = [
  "%",
  "_",
  "\\",
  "%_",
  "a%",
  "_a",
  "a_b",
  "100%",
  "-",
  ".",
  ":",
  "0",
  "a",
  "zz-no-such-value",
  "type:cluster",
  "type:VirtualMachine",
  "type:billingaccount",
  "type:project a",
  "type:volume type:disk",
  "type:nothing",
  "TRAIN",
  "Alpha BETA",
  "alpha alpha",
  "alpha alpha beta alpha",
  // The most a query may hold (8 terms besides its type: term), and one more: the same 400 from both.
  "a e i o u - 1 0",
  "a a a a a a a a",
  "type:cluster a e i o u - 1 0",
  "a e i o u - 1 0 s",
  "type:disk a a a a a a a a a",
  "ß",
  "straße",
  "STRASSE",
  "İstanbul",
  "i̇stanbul",
  "istanbul",
  "ΟΔΥΣΣΕΥΣ",
  "οδυσσευς",
  "σ",
  "ς",
  "🚀",
  "ǅ",
  "ǆungla",
  "done\\ok",
  "%_done",
  // A LIKE wildcard left unescaped would match these (dc-fra-1, cl-train-01, vol-alpha-data): none may match.
  "dc_fra",
  "cl_train",
  "alpha%data",
  "%train%",
  "train_",
  "fra\\1",
  "100%_done",
];

/** Every string value of the data set's resources (top-level strings and string arrays). */
function valuesOf(fixtures: Fixtures): string[] {
  const values = new Set<string>();
  const collections = [
    fixtures.billingAccounts,
    fixtures.projects,
    fixtures.clusters,
    fixtures.machines,
    fixtures.virtualMachines,
    fixtures.disks,
    fixtures.images,
    fixtures.networks,
    fixtures.volumes,
  ];
  for (const collection of collections) {
    for (const resource of (collection ?? []) as object[]) {
      for (const value of Object.values(resource)) {
        if (typeof value === "string") values.add(value);
        else if (Array.isArray(value)) for (const item of value) if (typeof item === "string") values.add(item);
      }
    }
  }
  return [...values].filter((v) => v.trim() !== "");
}

/** `count` queries drawn from the data set's values with the seed, then the awkward ones. */
export function queriesFor(fixtures: Fixtures, count: number, seed = 1): string[] {
  const next = seeded(seed);
  const values = valuesOf(fixtures);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const types = [...resourceTypes.values()];
  const word = (): string => {
    const words = pick(values).split(/\s+/u).filter(Boolean);
    return pick(words.length > 0 ? words : ["a"]);
  };
  const slice = (w: string): string => {
    const start = Math.floor(next() * w.length);
    const end = start + 1 + Math.floor(next() * (w.length - start));
    return w.slice(start, end);
  };
  const makers: (() => string)[] = [
    () => word(),
    () => word().slice(0, 1 + Math.floor(next() * 6)),
    () => slice(word()),
    () => word().toUpperCase(),
    () => `${word()} ${slice(word())}`,
    () => `${slice(word())} type:${pick(types)}`,
    () => `type:${pick(types)}`,
    // A whole value, cut to the 8 terms a query may hold.
    () => {
      const value = pick(values).slice(0, 256);
      const words = value.split(/\s+/u).filter(Boolean);
      return words.length <= 8 ? value : words.slice(0, 8).join(" ");
    },
    () => Array.from({ length: 3 + Math.floor(next() * 6) }, () => slice(word())).join(" "),
  ];
  const queries: string[] = [];
  for (let i = 0; i < count; i++) queries.push(pick(makers)());
  return [...queries, ...awkwardQueries];
}

/** The built-in data with billing accounts whose names lowercase differently in JavaScript and PostgreSQL. */
export function withUnicode(fixtures: Fixtures): Fixtures {
  const names = [
    "Straße Ünïcødé",
    "İSTANBUL office",
    "ΟΔΥΣΣΕΥΣ travel",
    "100%_done\\ok",
    "emoji 🚀 rocket",
    "ǅungla team",
  ];
  const accounts = names.map((displayName, i) => ({
    id: `ba-unicode-${i + 1}`,
    displayName,
    createTime: "2026-01-01T00:00:00Z",
  }));
  const first = fixtures.users[0];
  if (first) first.billingAccountIds.push(...accounts.map((a) => a.id));
  fixtures.billingAccounts = [...(fixtures.billingAccounts ?? []), ...accounts];
  return fixtures;
}
