/**
 * The data of a recording (see record.ts), as the fixture file holds it: the form of a recorded resource, the ids of
 * the stand-ins, the snapshot that turns the merged collections into a servable data set — stand-ins for what
 * answers named but never showed, and one user who sees it all — and the file's text, a header of comments that no
 * recorded value can end, then the data.
 */
/** A resource as the spec defines it: an object with an id (and a projectId, for a project's resources). */
export type Resource = Record<string, unknown> & { id: string; projectId?: string };

/** A JSON body's value; undefined when it is not JSON. */
export function parsed(body: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8"));
  } catch {
    return undefined;
  }
}

/** The id of the stand-in user of a recording. */
export const recordedUserId = "recorded";
/** The id of the stand-in billing account of projects whose billing account no answer showed. */
export const unrecordedBillingAccountId = "unrecorded";

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

/**
 * A line of the header as a YAML comment. A recorded value in it (an id, the file's name) may hold a line break: each
 * control character (and U+2028, U+2029) is written as a `\uXXXX` escape, so that nothing ends the comment.
 */
const comment = (line: string): string =>
  line === ""
    ? "#"
    : `# ${line.replace(/\p{Cc}|[\u2028\u2029]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}`;

/** The file's text: the header, with what the recording says of itself, then the data as JSON (which YAML reads). */
export function fileText(
  file: string,
  { data, notes }: { data: Record<string, unknown>; notes: string[] },
  { first, last, count, keys }: { first: string | undefined; last: string | undefined; count: number; keys: boolean },
): string {
  const header = [
    `Recorded by compute-gateway --record${first ? ` from ${first} to ${last}` : ""}: ${count} resources, from the`,
    "answers of searchResources and updateClusterMachine, merged by id (the newest answer wins).",
    keys
      ? "Keys as SHA-256 only: no API key in clear, no Authorization value and no request body is in this file."
      : "No API key, no Authorization value and no request body is in this file.",
    "",
    `Serve it: compute-stub --data ${file}`,
    ...(keys
      ? [
          "Users recorded as asked (--record-keys): each 'recorded-…' user is a key that called, who may see what its",
          "answers showed; that key (and those createApiKey made for it) authenticates it.",
        ]
      : []),
    `${keys ? "Besides," : "Users are not recorded:"} '${recordedUserId}' below is a stand-in who may see everything here; compute-stub gives`,
    'the first user a key (printed at start, or --api-key). To add a user, add an entry to "users":',
    '  {"id": "ci", "projectIds": ["…"], "billingAccountIds": ["…"], "apiKeys": [{"id": "default", "sha256": "<SHA-256 of the key>"}]}',
    '(or "key": "<the key>" in clear), as in @compute-api/stub-server\'s examples/fixtures.yaml.',
    ...(notes.length > 0 ? ["", ...notes] : []),
  ];
  return `${header.map(comment).join("\n")}\n${JSON.stringify(data, null, 2)}\n`;
}
