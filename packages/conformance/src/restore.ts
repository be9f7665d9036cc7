/**
 * With writes, the one machine the run may write to is found and left as it was: its project must be among those a
 * `type:project` search shows the key, and the machine among the `machines` of a cluster that the search
 * `type:cluster <project>` shows; its power state and price are read there before the run and written back after it.
 * When either cannot be found, the run stops before writing anything, saying what to change in the flags or in
 * the backend.
 */
import { projectName } from "@compute-api/rules";
import type { RawRequest } from "./http.js";
import type { Exchange } from "./pacing.js";
import type { AnsweredMachine } from "./update-rules.js";

/** The one machine a run with writes may write to. */
export interface Writes {
  projectId: string;
  machineId: string;
}

type Listed = { resourceName?: string; cluster?: { id?: string; projectId?: string; machines?: AnsweredMachine[] } };

const resultsOf = (json: unknown) => (json as { results?: Listed[] } | undefined)?.results ?? [];
const list = (items: readonly string[]) => (items.length === 0 ? "none" : items.slice(0, 10).join(", "));

/**
 * The machine as search shows it; throws, before anything is written, when search does not show the project or
 * the machine (it could not be restored), with what to change.
 */
export async function readMachine(
  exchange: Exchange,
  search: (query: string) => RawRequest,
  writes: Writes,
): Promise<AnsweredMachine> {
  const { projectId, machineId } = writes;
  const nothing = "; nothing was written";
  const projects = await exchange("searchResources", search(`type:project ${projectId}`));
  const names = resultsOf(projects.json).map((r) => String(r.resourceName));
  if (projects.status !== 200 || !names.includes(projectName(projectId))) {
    throw new Error(
      `--writes needs --project to name a project that a type:project search shows the key, and the search "type:project ${projectId}" ` +
        (projects.status === 200 ? `shows ${list(names)}` : `answered ${projects.status}`) +
        `: pass one the key sees as --project, or give the key's user access to ${projectId} in the backend${nothing}`,
    );
  }
  const query = `type:cluster ${projectId}`;
  const answer = await exchange("searchResources", search(query));
  if (answer.status !== 200)
    throw new Error(
      `--writes: the search "${query}" answered ${answer.status}, so the machine could not be read${nothing}`,
    );
  const clusters = resultsOf(answer.json).flatMap((r) => (r.cluster?.projectId === projectId ? [r.cluster] : []));
  const machine = clusters.flatMap((c) => c.machines ?? []).find((m) => m.id === machineId);
  if (!machine) {
    const listed = clusters.map((c) =>
      c.machines ? `${c.id}: ${list(c.machines.map((m) => String(m.id)))}` : `${c.id}: no machines field`,
    );
    throw new Error(
      `--writes needs --machine to be listed in the machines of a cluster that the search "${query}" shows, to read it before writing and restore it after; ` +
        `machine ${machineId} is not (clusters of ${projectId}: ${list(listed)}): pass a listed machine as --machine, ` +
        `or make the backend list each cluster's machines, with their powerState and priceHr, in Cluster.machines${nothing}`,
    );
  }
  return machine;
}

/** A PATCH body that puts the machine's power state and price back. */
export function restoreBody(machine: AnsweredMachine): Record<string, unknown> {
  const { powerState, priceHr } = machine as { powerState?: string; priceHr?: { value: string } };
  return {
    ...(powerState && powerState !== "MACHINE_POWER_STATE_UNSPECIFIED" ? { powerState } : {}),
    ...(priceHr ? { priceHr } : {}),
  };
}

/** Writes the state back; resolves with the note the report shows, or undefined when there was nothing to write. */
export async function restoreMachine(
  exchange: Exchange,
  patch: (body: unknown) => RawRequest,
  writes: Writes,
  state: Record<string, unknown>,
): Promise<string | undefined> {
  if (Object.keys(state).length === 0) return undefined;
  const answer = await exchange("updateClusterMachine", patch(state));
  return answer.status === 200
    ? `restored ${writes.projectId}/${writes.machineId} to ${JSON.stringify(state)}`
    : `could not restore ${writes.projectId}/${writes.machineId} to ${JSON.stringify(state)}: answered ${answer.status}`;
}
