/**
 * With writes, the one machine the run may write to is left as it was: its power state and price are read
 * through search before the run, and written back after it.
 */
import type { RawRequest } from "./http.js";
import type { Exchange } from "./pacing.js";

/** The one machine a run with writes may write to. */
export interface Writes {
  projectId: string;
  machineId: string;
}

type Machine = { id?: string; powerState?: string; priceHr?: { value: string } };

/**
 * The machine's power state and price now, as a PATCH body that puts them back; throws, before anything is
 * written, when search does not show the machine (it could not be restored).
 */
export async function machineState(
  exchange: Exchange,
  search: (query: string) => RawRequest,
  writes: Writes,
): Promise<Record<string, unknown>> {
  const answer = await exchange("searchResources", search(`type:cluster ${writes.projectId}`));
  const clusters =
    (answer.json as { results?: { cluster?: { projectId?: string; machines?: Machine[] } }[] } | undefined)?.results ??
    [];
  const machine = clusters
    .flatMap((r) => (r.cluster?.projectId === writes.projectId ? (r.cluster.machines ?? []) : []))
    .find((m) => m.id === writes.machineId);
  if (!machine) {
    throw new Error(
      `--writes: machine ${writes.machineId} is not among the clusters of ${writes.projectId} that search shows the key, so it could not be restored afterwards; nothing was written`,
    );
  }
  return {
    ...(machine.powerState && machine.powerState !== "MACHINE_POWER_STATE_UNSPECIFIED"
      ? { powerState: machine.powerState }
      : {}),
    ...(machine.priceHr ? { priceHr: machine.priceHr } : {}),
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
