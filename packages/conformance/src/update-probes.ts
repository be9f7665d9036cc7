/**
 * What the PATCH's description states that only a scripted sequence can show, with writes, on the one machine
 * the run may write to: `"+.5"` is answered and stored as `"0.5"` (price_normalization), search shows the change
 * at once in the machines of its cluster, whose totals follow (update_visibility, cluster_totals), and a volume
 * that does not exist, or is another project's, is 400 naming `volumeIds[i]` and changes nothing
 * (unknown_volume_rejection). Volumes a backend wrongly accepted are put back at once.
 * @see openapi/paths/v1_projects_{projectId}_cluster-machines_{id}.yaml
 */
import { maxVolumeIds } from "@compute-api/spec/facts";
import { type Verdicts, violationsOf } from "./checks.js";
import type { Answer, RawRequest } from "./http.js";
import type { Exchange } from "./pacing.js";
import type { Writes } from "./restore.js";
import { type AnsweredMachine, differences, type MachineModel, patchVerdicts } from "./update-rules.js";

/** What the update probe is given. */
export interface UpdateProbeContext {
  exchange: Exchange;
  writes: Writes;
  model: MachineModel;
  /** A PATCH of the machine, with the run's key. */
  patch(body: unknown): RawRequest;
  /** A search with the run's key. */
  search(query: string): RawRequest;
  judge(operationId: string, answer: Answer): Verdicts;
  judgeSearch(query: string, answer: Answer): Verdicts;
  record(operationId: string, request: RawRequest, verdicts: Verdicts): void;
  note(text: string): void;
}

/** An id no backend has for a volume. */
const noSuchVolume = "conformance-no-such-volume";

type Found = { cluster?: { projectId?: string; machines?: AnsweredMachine[] }; volume?: AnsweredMachine };

/** No answer, 429 or a 5xx: what the response checks judge; the rule's check says nothing of it. */
const transient = (answer: Answer) => answer.status === 0 || answer.status === 429 || answer.status >= 500;

const resultsOf = (answer: Answer) => (answer.json as { results?: Found[] } | undefined)?.results ?? [];

/** Runs the update probes in turn. */
export async function probeUpdates(ctx: UpdateProbeContext): Promise<void> {
  await probePrice(ctx);
  const before = ctx.model.machine.volumeIds;
  const volumes = Array.isArray(before) ? (before as string[]).slice(0, maxVolumeIds - 1) : [];
  await probeVolume(ctx, [...volumes, noSuchVolume], "a volume that does not exist");
  const foreign = await foreignVolume(ctx, volumes);
  if (foreign) await probeVolume(ctx, [...volumes, foreign.id], `volume ${foreign.id} of project ${foreign.projectId}`);
  else ctx.note("no volume of another project is visible to the key, so none was sent in a PATCH");
}

/** Searches the clusters of the project; the machine as search shows it, if it does. */
async function machineInSearch(ctx: UpdateProbeContext): Promise<{ request: RawRequest; found?: AnsweredMachine }> {
  const query = `type:cluster ${ctx.writes.projectId}`;
  const request = ctx.search(query);
  const answer = await ctx.exchange("searchResources", request);
  ctx.record("searchResources", request, ctx.judgeSearch(query, answer));
  const found = resultsOf(answer)
    .flatMap((r) => (r.cluster?.projectId === ctx.writes.projectId ? (r.cluster.machines ?? []) : []))
    .find((m) => m.id === ctx.writes.machineId);
  return found ? { request, found } : { request };
}

/** `"+.5"` answered `"0.5"`, and search shows the machine as the PATCH answered it. */
async function probePrice(ctx: UpdateProbeContext): Promise<void> {
  const body = { priceHr: { value: "+.5" } };
  const request = ctx.patch(body);
  const answer = await ctx.exchange("updateClusterMachine", request);
  ctx.record("updateClusterMachine", request, {
    ...ctx.judge("updateClusterMachine", answer),
    ...patchVerdicts(body, answer, ctx.model),
    ...(transient(answer) || answer.status === 200
      ? {}
      : { price_normalization: `a PATCH of priceHr "+.5" answered ${answer.status}, not 200` }),
  });
  if (answer.status !== 200) return;
  const { request: searched, found } = await machineInSearch(ctx);
  // What both show must be alike (what the answer leaves out is partial_update's to judge); the price must be shown.
  const answered = answer.json as AnsweredMachine;
  const fields = ctx.model.fields.filter(
    (f) => f === "priceHr" || (f in answered && found !== undefined && f in found),
  );
  const wrong = found ? differences(found, answered, fields) : [];
  ctx.record("updateClusterMachine", searched, {
    update_visibility: !found
      ? `search no longer lists ${ctx.writes.machineId} among the machines of a cluster of ${ctx.writes.projectId}`
      : wrong.length > 0
        ? `after the PATCH, search shows ${ctx.writes.machineId} with ${wrong.slice(0, 3).join("; ")}`
        : null,
  });
}

/** A PATCH of `volumeIds` whose last id is not a volume of the project: 400 naming it, and nothing changed. */
async function probeVolume(ctx: UpdateProbeContext, volumeIds: string[], what: string): Promise<void> {
  const index = volumeIds.length - 1;
  const field = `volumeIds[${index}]`;
  const before = ctx.model.machine.volumeIds;
  const request = ctx.patch({ volumeIds });
  const answer = await ctx.exchange("updateClusterMachine", request);
  const fields = violationsOf(answer.json).map((v) => v.field);
  const verdict =
    answer.status !== 400
      ? `${what} at ${field}: answered ${answer.status}, not 400`
      : fields.includes(field)
        ? null
        : `${what} at ${field}: the 400 names ${JSON.stringify(fields)}, not ${field}`;
  ctx.record("updateClusterMachine", request, {
    ...ctx.judge("updateClusterMachine", answer),
    ...(transient(answer) ? {} : { unknown_volume_rejection: verdict }),
  });
  if (answer.status === 200) {
    ctx.model.machine = { ...ctx.model.machine, ...(answer.json as AnsweredMachine) };
    const back = await ctx.exchange("updateClusterMachine", ctx.patch({ volumeIds: before ?? [] }));
    if (back.status === 200) ctx.model.machine = { ...ctx.model.machine, ...(back.json as AnsweredMachine) };
    ctx.note(`the backend accepted ${what}; volumeIds were put back (answered ${back.status})`);
    return;
  }
  const { request: searched, found } = await machineInSearch(ctx);
  if (!found) return;
  ctx.record("updateClusterMachine", searched, {
    unknown_volume_rejection:
      JSON.stringify(found.volumeIds ?? []) === JSON.stringify(before ?? [])
        ? null
        : `after the refused PATCH of ${what}, search shows volumeIds ${JSON.stringify(found.volumeIds)}, not ${JSON.stringify(before ?? [])}`,
  });
}

/** A volume the key sees in another project, whose id no volume of the machine's project has; undefined if none. */
async function foreignVolume(
  ctx: UpdateProbeContext,
  attached: readonly string[],
): Promise<{ id: string; projectId: string } | undefined> {
  const volumesOf = async (query: string) => {
    const request = ctx.search(query);
    const answer = await ctx.exchange("searchResources", request);
    ctx.record("searchResources", request, ctx.judgeSearch(query, answer));
    return resultsOf(answer).flatMap((r) => (r.volume ? [r.volume as { id?: unknown; projectId?: unknown }] : []));
  };
  const other = (await volumesOf("type:volume")).find(
    (v) => typeof v.id === "string" && v.projectId !== ctx.writes.projectId && !attached.includes(v.id),
  );
  if (!other) return undefined;
  const id = String(other.id);
  const same = await volumesOf(`type:volume ${id}`);
  if (same.some((v) => v.id === id && v.projectId === ctx.writes.projectId)) return undefined;
  return { id, projectId: String(other.projectId) };
}
