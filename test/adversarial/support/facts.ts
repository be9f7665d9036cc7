/**
 * What the built-in data says, for biasing requests towards things that exist and for knowing the right
 * answer: who may access which project, which machines and volumes exist, which key ids a user already has.
 */

import type { Fixtures } from "@compute-api/fixtures";
import { defaultKeyId } from "@compute-api/fixtures";
import { fixtures as builtin, type UserId } from "./targets.js";

/** A cluster machine that exists, with its cluster. */
export interface MachineRef {
  projectId: string;
  id: string;
  clusterId: string;
}

/** Facts of a data set. */
export interface Facts {
  users: UserId[];
  /** The projects a user may access. */
  projectsOf(user: UserId): ReadonlySet<string>;
  /** The resource path prefixes (`projects/p`, `billingAccounts/b`) a user may see in search results. */
  visibleTo(user: UserId): ReadonlySet<string>;
  mayCreateKeys(user: UserId): boolean;
  maySearch(user: UserId): boolean;
  /** Key ids each user starts with (the stub registers the test keys as `default`). */
  initialKeyIds(user: UserId): string[];
  machines: MachineRef[];
  machine(projectId: string, id: string): MachineRef | undefined;
  /** Volume ids of a project. */
  volumesOf(projectId: string): ReadonlySet<string>;
  volumeIds: string[];
  projectIds: string[];
  /** Ids and names of every resource, as search terms. */
  words: string[];
  /** A user who may access the project and search, to read its state with. */
  readerOf(projectId: string): UserId | undefined;
}

/** The facts of a data set (default: the built-in data). */
export function factsOf(data: Fixtures = builtin): Facts {
  const users = data.users.map((u) => u.id as UserId);
  const user = (id: UserId) => data.users.find((u) => u.id === id);
  const machines = (data.clusters ?? []).flatMap((c) =>
    (c.machines ?? []).map((m) => ({ projectId: m.projectId, id: m.id, clusterId: c.id })),
  );
  const volumes = data.volumes ?? [];
  const collections = [
    data.clusters,
    data.disks,
    data.images,
    data.machines,
    data.networks,
    data.virtualMachines,
    data.volumes,
    data.projects,
    data.billingAccounts,
  ];
  const words = [
    ...new Set(
      collections.flatMap((list) =>
        (list ?? []).flatMap((r: { id: string; name?: string; displayName?: string }) => [r.id, r.name, r.displayName]),
      ),
    ),
  ].filter((w): w is string => typeof w === "string" && w !== "");
  return {
    users,
    projectsOf: (id) => new Set(user(id)?.projectIds ?? []),
    visibleTo: (id) =>
      new Set([
        ...(user(id)?.projectIds ?? []).map((p) => `projects/${p}`),
        ...(user(id)?.billingAccountIds ?? []).map((b) => `billingAccounts/${b}`),
      ]),
    mayCreateKeys: (id) => user(id)?.canCreateApiKeys ?? true,
    maySearch: (id) => user(id)?.canSearch ?? true,
    initialKeyIds: (id) => [defaultKeyId, ...(user(id)?.apiKeys ?? []).map((k) => k.id)],
    machines,
    machine: (projectId, id) => machines.find((m) => m.projectId === projectId && m.id === id),
    volumesOf: (projectId) => new Set(volumes.filter((v) => v.projectId === projectId).map((v) => v.id)),
    volumeIds: volumes.map((v) => v.id),
    projectIds: [...new Set([...(data.projects ?? []).map((p) => p.id), ...data.users.flatMap((u) => u.projectIds)])],
    words,
    readerOf: (projectId) => users.find((u) => user(u)?.projectIds.includes(projectId) && (user(u)?.canSearch ?? true)),
  };
}

/** The facts of the built-in data. */
export const facts = factsOf();
