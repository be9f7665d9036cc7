/**
 * The stub's state: users and their API keys, the resources, and the search index over them. Every operation
 * of the spec is a method here; HTTP is the routes' business. A method that fails changes nothing.
 */

import { type FieldViolation, invalidRequest } from "@compute-api/contract";
import {
  apiKeyExists,
  billingAccountName,
  clusterMachineNotFound,
  clusterTotals,
  createApiKeysDenied,
  hashApiKey,
  newApiKey,
  parseSearchQuery,
  priceChange,
  projectDenied,
  projectName,
  projectResourceCounts,
  projectResourceName,
  searchDenied,
  volumeNotFound,
} from "@compute-api/server";
import {
  type Cluster,
  type ClusterMachine,
  type Fixtures,
  type ProjectCollection,
  projectCollections,
  type ResponseBody,
  type SearchResult,
  type UpdateClusterMachineRequest,
} from "../types.js";
import type { SearchResource } from "./search-columns.js";
import { SearchIndex } from "./search-index.js";

/** Who a request acts for. */
export interface User {
  readonly id: string;
  readonly projectIds: ReadonlySet<string>;
  /** `p:<projectId>` and `b:<billingAccountId>` of everything the user may see (the search index's access keys). */
  readonly access: ReadonlySet<string>;
  readonly canCreateApiKeys: boolean;
  readonly canSearch: boolean;
  /** The user's keys by id, each as its SHA-256 only. */
  readonly keys: Map<string, { sha256: string; createTime: string }>;
}

/** A project's entry of a map by project, made when missing. */
function inProject<T>(byProject: Map<string, T>, projectId: string, make: () => T): T {
  let found = byProject.get(projectId);
  if (found === undefined) {
    found = make();
    byProject.set(projectId, found);
  }
  return found;
}

/**
 * The searchable resources of the fixtures, made one at a time as the index reads them, so that no wrapper
 * outlives its reading; the projects' resourceCount is set before.
 */
function* searchResources(fixtures: Fixtures): Generator<SearchResource> {
  for (const b of fixtures.billingAccounts ?? []) {
    yield {
      resourceType: "billingAccount",
      resourceName: billingAccountName(b.id),
      access: `b:${b.id}`,
      resource: b,
    };
  }
  // One access key per project, shared by its resources.
  const projectAccess = new Map<string, string>();
  const accessOf = (projectId: string): string => {
    let access = projectAccess.get(projectId);
    if (access === undefined) {
      access = `p:${projectId}`;
      projectAccess.set(projectId, access);
    }
    return access;
  };
  for (const collection of Object.keys(projectCollections) as ProjectCollection[]) {
    for (const r of fixtures[collection] ?? []) {
      yield {
        resourceType: projectCollections[collection],
        resourceName: projectResourceName(r.projectId, collection, r.id),
        access: accessOf(r.projectId),
        resource: r,
      };
    }
  }
  for (const p of fixtures.projects ?? []) {
    yield { resourceType: "project", resourceName: projectName(p.id), access: accessOf(p.id), resource: p };
  }
}

/** The in-memory state of the stub, built from fixtures that checkFixtures accepted. */
export class Store {
  private readonly users = new Map<string, User>();
  private readonly keyOwners = new Map<string, User>();
  // By project, then id: a key joined of the two would be a string more per machine and volume.
  private readonly clusterMachines = new Map<string, Map<string, { machine: ClusterMachine; cluster: Cluster }>>();
  private readonly volumes = new Map<string, Set<string>>();
  private readonly index: SearchIndex;

  /**
   * Builds the state from a copy of the fixtures (with `adopt`: from the fixtures themselves, which the caller
   * hands over and never uses again); their keys are kept as SHA-256 only.
   */
  constructor(source: Fixtures, now: Date = new Date(), { adopt = false }: { adopt?: boolean } = {}) {
    // The store changes what it keeps (counts, totals, machines): a copy, unless the data is its own to change.
    const fixtures = adopt ? source : structuredClone(source);
    for (const u of fixtures.users) {
      const user: User = {
        id: u.id,
        projectIds: new Set(u.projectIds),
        access: new Set([...u.projectIds.map((p) => `p:${p}`), ...u.billingAccountIds.map((b) => `b:${b}`)]),
        canCreateApiKeys: u.canCreateApiKeys ?? true,
        canSearch: u.canSearch ?? true,
        keys: new Map(),
      };
      this.users.set(user.id, user);
      for (const k of u.apiKeys ?? []) {
        this.registerKey(user, k.id, k.sha256 ?? hashApiKey(k.key ?? ""), k.createTime ?? now.toISOString());
      }
    }

    const counts = projectResourceCounts(fixtures);
    let expected = (fixtures.billingAccounts?.length ?? 0) + (fixtures.projects?.length ?? 0);
    for (const collection of Object.keys(projectCollections) as ProjectCollection[])
      expected += fixtures[collection]?.length ?? 0;
    for (const p of fixtures.projects ?? []) p.resourceCount = counts.get(p.id) ?? 0;
    for (const cluster of fixtures.clusters ?? []) {
      cluster.machines ??= [];
      Object.assign(cluster, clusterTotals(cluster.machines));
      for (const machine of cluster.machines)
        inProject(this.clusterMachines, machine.projectId, () => new Map()).set(machine.id, { machine, cluster });
    }
    for (const v of fixtures.volumes ?? []) inProject(this.volumes, v.projectId, () => new Set()).add(v.id);
    this.index = new SearchIndex(searchResources(fixtures), {}, expected);
  }

  /** Number of searchable resources. */
  get resourceCount(): number {
    return this.index.size;
  }

  /** Number of search entries refreshed since the index's last vacuum; a PATCH adds none (tests watch it). */
  get searchOverlaySize(): number {
    return this.index.overlaySize;
  }

  /** The user of an API key, or undefined for an unknown key. */
  authenticate(apiKey: string): User | undefined {
    return this.keyOwners.get(hashApiKey(apiKey));
  }

  /** Gives a user a key chosen from outside (the `--api-key` flag, tests); false when the user does not exist. */
  addApiKey(userId: string, keyId: string, apiKey: string): boolean {
    const user = this.users.get(userId);
    if (!user) return false;
    this.registerKey(user, keyId, hashApiKey(apiKey), new Date().toISOString());
    return true;
  }

  /** createApiKey: a new key for the user, with the user's access. */
  createApiKey(user: User, apikeyId: string): ResponseBody<"createApiKey"> {
    if (!user.canCreateApiKeys) throw createApiKeysDenied();
    if (user.keys.has(apikeyId)) throw apiKeyExists(apikeyId);
    const apiKey = newApiKey();
    const createTime = new Date().toISOString();
    this.registerKey(user, apikeyId, hashApiKey(apiKey), createTime);
    return { id: apikeyId, createTime, key: apiKey };
  }

  /** updateClusterMachine: sets the fields present, keeps the others, and updates the cluster's totals. */
  updateClusterMachine(user: User, projectId: string, id: string, body: UpdateClusterMachineRequest): ClusterMachine {
    if (!user.projectIds.has(projectId)) throw projectDenied(projectId);
    const found = this.clusterMachines.get(projectId)?.get(id);
    if (!found) throw clusterMachineNotFound(projectId, id);
    const { machine, cluster } = found;

    // Check everything before changing anything.
    const violations: FieldViolation[] = [];
    (body.volumeIds ?? []).forEach((volumeId, i) => {
      if (!this.volumes.get(projectId)?.has(volumeId)) violations.push(volumeNotFound(i, volumeId, projectId));
    });
    const {
      price,
      totals,
      violations: priceViolations,
    } = priceChange(cluster.machines ?? [], (m) => m === machine, body.priceHr);
    violations.push(...priceViolations);
    if (violations.length > 0) throw invalidRequest(violations);

    if (body.powerState !== undefined) machine.powerState = body.powerState;
    if (body.state !== undefined) machine.state = body.state;
    if (price !== undefined) machine.priceHr = { value: price };
    if (body.volumeIds !== undefined) machine.volumeIds = [...body.volumeIds];
    Object.assign(cluster, totals);
    // The cluster's search values are its top-level string and string-array fields (visitSearchFields); this
    // changes its machines (objects) and totals (numbers and Decimals), none of them: its search entry stays.
    return machine;
  }

  /** searchResources: the best matches among what the user may access. */
  search(user: User, query: string): SearchResult[] {
    if (!user.canSearch) throw searchDenied();
    const { terms, type } = parseSearchQuery(query);
    return this.index.search({ terms, type, canAccess: (access) => user.access.has(access) }).map(
      ({ entry, score }) =>
        ({
          resourceName: entry.resourceName,
          resourceType: entry.resourceType,
          score,
          [entry.resourceType]: entry.resource,
        }) as SearchResult,
    );
  }

  private registerKey(user: User, keyId: string, sha256: string, createTime: string): void {
    const replaced = user.keys.get(keyId);
    if (replaced) this.keyOwners.delete(replaced.sha256);
    user.keys.set(keyId, { sha256, createTime });
    this.keyOwners.set(sha256, user);
  }
}
