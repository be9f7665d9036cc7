/**
 * The data of a recording (see record.ts), as the fixture file holds it: the form of a recorded resource, the ids of
 * the stand-ins, the scrubbing of anything of the form of a key, and the snapshot that turns the merged collections
 * into a servable data set — stand-ins for what answers named but never showed, and one user who sees it all.
 */

/** A resource as the spec defines it: an object with an id (and a projectId, for a project's resources). */
export type Resource = Record<string, unknown> & { id: string; projectId?: string };

/** The id of the stand-in user of a recording. */
export const recordedUserId = "recorded";
/** The id of the stand-in billing account of projects whose billing account no answer showed. */
export const unrecordedBillingAccountId = "unrecorded";

/** Anything of the form of an API key of this service. */
const keyForm = /cak_[A-Za-z0-9._~+/=-]*/g;

/** A resource with every string of the form of a key replaced, at any depth. */
export function scrub<T>(value: T): T {
  if (typeof value === "string") return value.replace(keyForm, "[redacted]") as T;
  if (Array.isArray(value)) return value.map(scrub) as T;
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, scrub(item)])) as T;
  return value;
}

/** Code-point order, as the stub sorts names: the file's order does not depend on the order of the traffic. */
const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

/** The data set, servable: stand-ins for what answers named but never showed, and one user who sees it all. */
export function snapshotOf(
  collections: Map<string, Map<string, Resource>>,
  loneMachines: Map<string, Resource>,
): { data: Record<string, unknown>; notes: string[] } {
  const notes: string[] = [];
  const sorted = (name: string) => [...(collections.get(name) ?? new Map<string, Resource>())].sort(byKey);
  const billingAccounts = new Map(sorted("billingAccounts"));
  const projects = new Map(sorted("projects"));
  const projectIds = new Set([...projects.values()].map((p) => p.id));
  const data: Record<string, unknown> = {};
  const volumes = new Set(sorted("volumes").map(([key]) => key));
  const missingProjects = new Set<string>();
  const droppedVolumes: string[] = [];
  for (const name of [...collections.keys()].sort()) {
    if (name === "billingAccounts" || name === "projects") continue;
    data[name] = sorted(name).map(([, resource]) => {
      if (resource.projectId !== undefined && !projectIds.has(resource.projectId))
        missingProjects.add(resource.projectId);
      if (name !== "clusters") return resource;
      // A machine may name a volume no answer showed: the stub would refuse the reference.
      const machines = ((resource.machines as Resource[] | undefined) ?? []).map((machine) => {
        const ids = (machine.volumeIds as string[] | undefined) ?? [];
        const kept = ids.filter((v) => volumes.has(`${machine.projectId}/${v}`));
        for (const v of ids) if (!kept.includes(v)) droppedVolumes.push(`${machine.projectId}/${machine.id} → ${v}`);
        return kept.length === ids.length ? machine : { ...machine, volumeIds: kept };
      });
      return { ...resource, machines };
    });
  }
  for (const id of [...missingProjects].sort()) {
    projects.set(id, { id, billingAccountId: unrecordedBillingAccountId });
    projectIds.add(id);
  }
  for (const project of projects.values()) {
    const account = project.billingAccountId as string;
    if (!billingAccounts.has(account))
      billingAccounts.set(account, {
        id: account,
        ...(account === unrecordedBillingAccountId ? { displayName: "Stand-in: no answer showed it" } : {}),
      });
  }
  if (missingProjects.size > 0)
    notes.push(
      `Stand-ins, with their ids only: the projects ${[...missingProjects].join(", ")} (no answer showed them; search for them to record them).`,
    );
  const standInAccounts = [...billingAccounts.keys()].filter((id) => !collections.get("billingAccounts")?.has(id));
  if (standInAccounts.length > 0)
    notes.push(`Stand-ins, with their ids only: the billing accounts ${standInAccounts.sort().join(", ")}.`);
  if (droppedVolumes.length > 0)
    notes.push(`Left out of machines' volumeIds, as no answer showed the volume: ${droppedVolumes.join(", ")}.`);
  if (loneMachines.size > 0)
    notes.push(
      `Left out, as no answer showed their cluster: the machines ${[...loneMachines.keys()].sort().join(", ")}.`,
    );
  return {
    data: {
      users: [
        {
          id: recordedUserId,
          projectIds: [...projects.keys()].sort(),
          billingAccountIds: [...billingAccounts.keys()].sort(),
        },
      ],
      billingAccounts: [...billingAccounts.entries()].sort(byKey).map(([, b]) => b),
      projects: [...projects.entries()].sort(byKey).map(([, p]) => p),
      ...data,
    },
    notes,
  };
}
