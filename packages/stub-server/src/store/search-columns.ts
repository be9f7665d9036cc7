/**
 * The search index's columns. Entries are ranked by resourceName (code point order) once and kept as arrays by
 * rank; two dictionaries (primary fields — id and name — and other fields) map every distinct lowercased value to
 * the ranks that hold it.
 * @see openapi/paths/v1_resources_search.yaml
 */

import { visitSearchFields } from "@compute-api/rules";
import type { ResourceType } from "../types.js";
import { nameOrder } from "./name-order.js";
import type { SearchDictionary } from "./search-dictionary.js";
import { SearchDictionaryBuilder } from "./search-dictionary-builder.js";
import { type Steps, stepItems } from "./steps.js";

/** A resource to index. */
export interface SearchResource {
  readonly resourceType: ResourceType;
  readonly resourceName: string;
  /** What the caller must hold to see the entry: `p:<projectId>` or `b:<billingAccountId>`. */
  readonly access: string;
  /** The live resource object; results show it as it is at the time of the search. */
  readonly resource: Record<string, unknown>;
}

/** One indexed resource and its rank (its place in resourceName order). */
export interface SearchEntry extends SearchResource {
  readonly rank: number;
}

/** What the columns are made of, by rank. */
interface ColumnParts {
  resources: Record<string, unknown>[];
  names: string[];
  typeNames: ResourceType[];
  types: Uint8Array;
  accessKeys: string[];
  accessIds: Int32Array;
  byType: Int32Array[];
  primary: SearchDictionary;
  other: SearchDictionary;
}

/**
 * Ranks the resources and builds the dictionaries, with `blockValues` values per block of text; `expected` is
 * about how many resources there are (the dictionaries' first hash table sizes). In steps: it yields every
 * `stepItems` resources and between its phases.
 */
export function* searchColumns(
  resources: Iterable<SearchResource>,
  blockValues: number,
  expected = 0,
): Steps<SearchColumns> {
  // One pass in the resources' own order, likely the order they lie in memory (read in rank order, each would cost
  // a cache miss per field), keeping what the columns need but no resource's wrapper.
  const objects: Record<string, unknown>[] = [];
  const names: string[] = [];
  const typeOf: number[] = [];
  const accessOf: number[] = [];
  const typeNames: ResourceType[] = [];
  const accessKeys: string[] = [];
  const typeIds = new Map<ResourceType, number>();
  const accessIds = new Map<string, number>();
  const primary = new SearchDictionaryBuilder(expected);
  const other = new SearchDictionaryBuilder(expected);
  for (const r of resources) {
    const i = objects.length;
    if (i % stepItems === stepItems - 1) yield;
    let type = typeIds.get(r.resourceType);
    if (type === undefined) {
      type = typeNames.push(r.resourceType) - 1;
      typeIds.set(r.resourceType, type);
    }
    let access = accessIds.get(r.access);
    if (access === undefined) {
      access = accessKeys.push(r.access) - 1;
      accessIds.set(r.access, access);
    }
    objects.push(r.resource);
    names.push(r.resourceName);
    typeOf.push(type);
    accessOf.push(access);
    visitSearchFields(r.resourceType, r.resourceName, r.resource, (value, isPrimary) =>
      (isPrimary ? primary : other).add(value, i),
    );
  }
  yield;
  const n = objects.length;
  const order = nameOrder(names);
  yield;
  const parts: ColumnParts = {
    resources: [],
    names: [],
    typeNames,
    types: new Uint8Array(n),
    accessKeys,
    accessIds: new Int32Array(n),
    byType: [],
    primary: undefined as unknown as SearchDictionary,
    other: undefined as unknown as SearchDictionary,
  };
  order.forEach((i, rank) => {
    parts.resources.push(objects[i] as Record<string, unknown>);
    parts.names.push(names[i] as string);
    parts.types[rank] = typeOf[i] as number;
    parts.accessIds[rank] = accessOf[i] as number;
  });
  // The columns in input order are not needed past this point: emptied now, they are not carried through the
  // collections that building the dictionaries of a large index starts.
  for (const column of [objects, names, typeOf, accessOf]) column.length = 0;
  yield;
  parts.primary = yield* primary.building(order, blockValues);
  yield;
  parts.other = yield* other.building(order, blockValues);
  const counts = new Int32Array(typeNames.length);
  for (const type of parts.types) counts[type] = (counts[type] as number) + 1;
  for (const count of counts) parts.byType.push(new Int32Array(count));
  counts.fill(0);
  parts.types.forEach((type, rank) => {
    (parts.byType[type] as Int32Array)[(counts[type] as number)++] = rank;
  });
  return new SearchColumns(parts, blockValues);
}

/** A fixed set of resources (the stub creates and deletes none; it updates them) as arrays by rank. */
export class SearchColumns {
  /** The resource objects, by rank. */
  readonly resources: Record<string, unknown>[];
  /** The resourceNames, by rank. */
  readonly names: string[];
  /** The distinct resource types. */
  readonly typeNames: ResourceType[];
  /** Index in typeNames, by rank. */
  readonly types: Uint8Array;
  /** The distinct access keys. */
  readonly accessKeys: string[];
  /** Index in accessKeys, by rank. */
  readonly accessIds: Int32Array;
  /** Ranks by index in typeNames. */
  readonly byType: Int32Array[];
  /** The values of the primary fields (id and name); built again by `rebuildDictionaries`. */
  primary: SearchDictionary;
  /** The values of the other fields and the resourceName; built again by `rebuildDictionaries`. */
  other: SearchDictionary;
  private readonly ranksOf = new Map<object, number>();

  /** The columns of resources ranked and indexed by `searchColumns`. */
  constructor(
    parts: ColumnParts,
    private readonly blockValues: number,
  ) {
    this.resources = parts.resources;
    this.names = parts.names;
    this.typeNames = parts.typeNames;
    this.types = parts.types;
    this.accessKeys = parts.accessKeys;
    this.accessIds = parts.accessIds;
    this.byType = parts.byType;
    this.primary = parts.primary;
    this.other = parts.other;
  }

  /** Builds the dictionaries again from the resources as they are now (the fold of the index's overlay). */
  rebuildDictionaries(): void {
    const n = this.size;
    const primary = new SearchDictionaryBuilder(n);
    const other = new SearchDictionaryBuilder(n);
    for (let rank = 0; rank < n; rank++) {
      const type = this.typeNames[this.types[rank] as number] as ResourceType;
      visitSearchFields(
        type,
        this.names[rank] as string,
        this.resources[rank] as Record<string, unknown>,
        (value, isPrimary) => (isPrimary ? primary : other).add(value, rank),
      );
    }
    // Entries were added in rank order: entry i is at rank i.
    const order = Int32Array.from({ length: n }, (_, i) => i);
    this.primary = primary.build(order, this.blockValues);
    this.other = other.build(order, this.blockValues);
  }

  /** Number of entries. */
  get size(): number {
    return this.names.length;
  }

  /** The rank of a resource object, if indexed. */
  rankOf(resource: object): number | undefined {
    // Looked for once per resource: only updates ask, and a map of every resource would cost more than they do.
    let rank = this.ranksOf.get(resource);
    if (rank === undefined) {
      rank = this.resources.indexOf(resource as Record<string, unknown>);
      if (rank < 0) return undefined;
      this.ranksOf.set(resource, rank);
    }
    return rank;
  }

  /** The entry at a rank. */
  entry(rank: number): SearchEntry {
    return {
      resourceType: this.typeNames[this.types[rank] as number] as ResourceType,
      resourceName: this.names[rank] as string,
      access: this.accessKeys[this.accessIds[rank] as number] as string,
      resource: this.resources[rank] as Record<string, unknown>,
      rank,
    };
  }
}
