/**
 * The users and keys of a recording, kept only when they are asked for (`recordKeys`, the stub's `--record-keys`):
 * each API key that sent a request whose answer passed the check becomes a user of the fixture file, who may see
 * the projects and billing accounts its answers showed, with that key — as its SHA-256 only, the form a fixture file
 * accepts (`apiKeys[].sha256`), never in clear — and the keys createApiKey made for it, the same way. The stub that
 * serves the file then answers the same key with the same resources.
 */
import { hashApiKey } from "@compute-api/rules";

/** A recorded key, as a fixture file holds it. */
interface RecordedKey {
  id: string;
  sha256: string;
  createTime?: string;
}

/** What one caller's key showed. */
interface KeyUser {
  projectIds: Set<string>;
  billingAccountIds: Set<string>;
  /** The keys createApiKey answered to it, by id. */
  created: Map<string, RecordedKey>;
}

/** A user of the recording, as a fixture file holds it. */
export interface RecordedUser {
  id: string;
  projectIds: string[];
  billingAccountIds: string[];
  apiKeys: RecordedKey[];
}

/** The id of the caller's own key in the file (its id at the backend is not in any answer). */
const callerKeyId = "recorded";

const sorted = (values: Iterable<string>) => [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** The callers' keys and what their answers showed, by the SHA-256 of the key. */
export class RecordedKeys {
  private readonly users = new Map<string, KeyUser>();

  /** Notes what a conforming answer to the key showed; true when it changed anything. */
  answered(apiKey: string, operationId: string, status: number, value: unknown): boolean {
    if (status !== 200) return false;
    const sha256 = hashApiKey(apiKey);
    let user = this.users.get(sha256);
    if (!user) {
      user = { projectIds: new Set(), billingAccountIds: new Set(), created: new Map() };
      this.users.set(sha256, user);
    }
    const body = (value ?? {}) as Record<string, unknown>;
    if (operationId === "createApiKey") {
      const { id, key, createTime } = body;
      if (typeof id === "string" && typeof key === "string")
        user.created.set(id, {
          id,
          sha256: hashApiKey(key),
          ...(typeof createTime === "string" ? { createTime } : {}),
        });
    } else if (operationId === "updateClusterMachine") {
      if (typeof body.projectId === "string") user.projectIds.add(body.projectId);
    } else if (operationId === "searchResources") {
      for (const result of (body.results as Record<string, unknown>[] | undefined) ?? []) {
        const type = result.resourceType;
        const resource = (typeof type === "string" ? result[type] : undefined) as Record<string, unknown> | undefined;
        if (typeof resource?.id !== "string") continue;
        if (type === "billingAccount") user.billingAccountIds.add(resource.id);
        else if (type === "project") user.projectIds.add(resource.id);
        else if (typeof resource.projectId === "string") user.projectIds.add(resource.projectId);
      }
    }
    return true;
  }

  /**
   * The users, each with what its answers showed of the data set's projects and billing accounts, in the order of
   * their ids (`recorded-` and the first 12 hex digits of the key's SHA-256: the same key, the same user).
   */
  snapshot(projects: ReadonlySet<string>, billingAccounts: ReadonlySet<string>): RecordedUser[] {
    const users = [...this.users].map(([sha256, user]): RecordedUser => {
      let keyId = callerKeyId;
      for (let n = 2; user.created.has(keyId); n++) keyId = `${callerKeyId}-${n}`;
      return {
        id: `recorded-${sha256.slice(0, 12)}`,
        projectIds: sorted([...user.projectIds].filter((id) => projects.has(id))),
        billingAccountIds: sorted([...user.billingAccountIds].filter((id) => billingAccounts.has(id))),
        apiKeys: [{ id: keyId, sha256 }, ...[...user.created.values()].sort((a, b) => (a.id < b.id ? -1 : 1))],
      };
    });
    return users.sort((a, b) => (a.id < b.id ? -1 : 1));
  }
}

/** A recording's data set with the callers' users after its stand-in, when they are recorded (`callers`). */
export function withCallers<T extends { data: Record<string, unknown> }>(
  taken: T,
  callers: RecordedKeys | undefined,
): T {
  if (!callers) return taken;
  const { users, billingAccounts, projects, ...resources } = taken.data as Record<string, { id: string }[]>;
  const ids = (list: { id: string }[] | undefined) => new Set((list ?? []).map((r) => r.id));
  const recorded = callers.snapshot(ids(projects), ids(billingAccounts));
  return { ...taken, data: { users: [...(users ?? []), ...recorded], billingAccounts, projects, ...resources } };
}
