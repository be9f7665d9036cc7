/**
 * Recording (`compute-gateway --record <file>`): what the backend answers, kept as a fixture file the stub serves
 * (`compute-stub --data <file>`), so that a team gets a stateful stub of its own account. Kept: the resources of
 * searchResources' answers and updateClusterMachine's (a machine goes into its cluster), merged by id, the newest
 * answer winning — only answers that passed the contract's check. Never kept: API keys (createApiKey's answer is
 * not read), the `Authorization` header, request bodies, and anything of the form of a key in any spelling (`cak_…`,
 * `CAK_…`, `cak%5F…`), in a resource's values or its field names (the rules' redactKeys, as the stub's journal).
 * Users are not recorded unless asked for (`keys`, record-keys.ts: each caller's key as a user, its key as SHA-256
 * only): the file has one stand-in user who may see everything in it, and its header says how to add others.
 *
 * The file is YAML — a header of comments, then the data as JSON, which YAML reads as it is. A recorded value in the
 * header (an id) has its line breaks and other control characters escaped, so that none ends a comment. The file is
 * written whole (record-file.ts: one writer, holding a lock beside it; a temporary file of an unpredictable name,
 * created exclusively, renamed over the last): at start (a file that cannot be written, or another writer, refuses
 * the start), every `intervalMs` when something changed, and at the end (the drain, SIGINT, SIGTERM), where a
 * failed write fails close().
 */
import { extname } from "node:path";
import { bearerToken, createAjv, loadSpec, type OpenApiDocument } from "@compute-api/contract";
import { redactKeys } from "@compute-api/rules";
import type { Logger } from "@compute-api/runtime";
import { fileText, parsed, type Resource, snapshotOf } from "./record-data.js";
import { lockRecording, RecordingRefused, writeWhole } from "./record-file.js";
import { RecordedKeys, withCallers } from "./record-keys.js";
import type { HandlerWrapper } from "./request-notes.js";

export { recordedUserId, unrecordedBillingAccountId } from "./record-data.js";
export { RecordingRefused } from "./record-file.js";

/** Options of a recorder. */
export interface RecorderOptions {
  /** The file, `.yaml` or `.yml`. */
  file: string;
  /** How often the file is written when something changed, in ms; default 5000. */
  intervalMs?: number;
  logger?: Logger;
  /** The bundled spec, whose ResourceId the recorded ids must be; default the one of @compute-api/spec. */
  spec?: OpenApiDocument;
  /** Record each caller's key as a user who sees what its answers showed (record-keys.ts); default false. */
  keys?: boolean;
}

/** A recording in progress. */
export interface Recorder {
  /**
   * An answer that passed the contract's check, its body decoded, and the caller's API key (read only with `keys`);
   * only 200s of the recorded operations are kept.
   */
  answered(operationId: string, status: number, body: Uint8Array, apiKey?: string): void;
  /**
   * Takes the file's lock and writes the empty recording, then every `intervalMs`; rejects with a RecordingRefused
   * when the file cannot be written or another process records into it.
   */
  start(): Promise<void>;
  /** Writes the file now if anything changed since it was last written; a failure is logged. */
  flush(): Promise<void>;
  /** Stops the periodic writes, writes the file a last time and releases its lock; rejects when that write failed. */
  close(): Promise<void>;
  /** The data set as the file holds it, and what the header says besides. */
  snapshot(): { data: Record<string, unknown>; notes: string[] };
}

/** The refusal of a file the stub could not read back, or undefined for a `.yaml`/`.yml` one. */
export function recordFileProblem(file: string): string | undefined {
  const extension = extname(file).toLowerCase();
  return extension === ".yaml" || extension === ".yml"
    ? undefined
    : "the recording is written as YAML, whose header says how to add a user: name a .yaml or .yml file";
}

/**
 * The answers kept so far, merged by id: one owner of the recording's state. A fixture file names its collections
 * after the resource types (`virtualMachine` → `virtualMachines`), as @compute-api/fixtures does; billing accounts
 * and projects by id, a project's resources by project and id.
 */
class Recording {
  /** @param isResourceId whether an id is one a request can address: the stub serves no other (fixtures' rule). */
  constructor(private readonly isResourceId: (id: unknown) => boolean) {}
  /** By collection (`clusters`), then `projectId/id` (or `id`). */
  private readonly collections = new Map<string, Map<string, Resource>>();
  /** Machines whose cluster no answer showed yet, by `projectId/id`. */
  private readonly loneMachines = new Map<string, Resource>();
  /** Resources left out, as an id of theirs is no ResourceId (a line break, a space): `type projectId/id`. */
  private readonly unservable = new Set<string>();
  /** When the first and the last kept answer came. */
  first: string | undefined;
  last: string | undefined;

  /** Keeps what a conforming answer holds; true when it was one of the recorded answers. */
  answered(operationId: string, status: number, body: Uint8Array): boolean {
    if (status !== 200 || (operationId !== "searchResources" && operationId !== "updateClusterMachine")) return false;
    const value = parsed(body);
    if (value === undefined) return false;
    if (operationId === "updateClusterMachine") {
      const machine = redactKeys(value as Resource);
      if (this.servable("clusterMachine", machine)) this.keepMachine(machine);
    } else
      for (const result of (value as { results?: Record<string, unknown>[] }).results ?? []) {
        const type = result.resourceType;
        const resource = typeof type === "string" ? result[type] : undefined;
        if (!resource || typeof resource !== "object") continue;
        const scrubbed = redactKeys(resource as Resource);
        if (this.servable(type as string, scrubbed)) this.keep(type as string, scrubbed);
      }
    this.last = new Date().toISOString();
    this.first ??= this.last;
    return true;
  }

  /** How many resources are kept. */
  count(): number {
    return [...this.collections.values()].reduce((sum, c) => sum + c.size, 0);
  }

  /** The data set, servable: stand-ins for what answers named but never showed, and one user who sees it all. */
  snapshot() {
    const snapshot = snapshotOf(this.collections, this.loneMachines);
    if (this.unservable.size > 0)
      snapshot.notes.push(`Left out, as an id of theirs is no ResourceId: ${[...this.unservable].sort().join(", ")}.`);
    return snapshot;
  }

  /** Whether the stub could serve a resource: its ids, its project's and its billing account's are ResourceIds. */
  private servable(type: string, resource: Resource): boolean {
    const { id, projectId, billingAccountId } = resource;
    const ok = [id, projectId, billingAccountId].every((v) => v === undefined || this.isResourceId(v));
    if (!ok) this.unservable.add(`${type} ${keyOf(resource)}`);
    // A cluster's machines of ids a request cannot address are left out of it.
    if (ok && type === "cluster" && Array.isArray(resource.machines))
      resource.machines = (resource.machines as Resource[]).filter((machine) =>
        this.servable("clusterMachine", machine),
      );
    return ok;
  }

  /** A resource of a search answer, the newest of its id. */
  private keep(type: string, resource: Resource): void {
    this.collection(`${type}s`).set(keyOf(resource), resource);
    if (type === "cluster")
      for (const machine of (resource.machines as Resource[] | undefined) ?? [])
        this.loneMachines.delete(keyOf(machine));
  }

  /** A machine of a PATCH answer: into its cluster, where one was seen; else kept aside until one is. */
  private keepMachine(machine: Resource): void {
    for (const cluster of this.collections.get("clusters")?.values() ?? []) {
      if (cluster.projectId !== machine.projectId) continue;
      const machines = (cluster.machines as Resource[] | undefined) ?? [];
      const at = machines.findIndex((m) => m.id === machine.id);
      if (at >= 0) {
        machines[at] = machine;
        return;
      }
    }
    this.loneMachines.set(keyOf(machine), machine);
  }

  private collection(name: string): Map<string, Resource> {
    let found = this.collections.get(name);
    if (!found) {
      found = new Map();
      this.collections.set(name, found);
    }
    return found;
  }
}

const keyOf = (r: Resource) => (r.projectId === undefined ? r.id : `${r.projectId}/${r.id}`);

/** A recording into `file`, not started: start() takes the file and writes it first. */
export function createRecorder({
  file,
  intervalMs = 5000,
  logger,
  spec = loadSpec(),
  keys = false,
}: RecorderOptions): Recorder {
  const problem = recordFileProblem(file);
  if (problem) throw new RecordingRefused(`--record ${file}: ${problem}`);
  const isResourceId = createAjv(spec).compile({ $ref: "openapi.json#/components/schemas/ResourceId" });
  const recording = new Recording((id) => isResourceId(id));
  const callers = keys ? new RecordedKeys() : undefined;
  /** The data set, with the callers' users after the stand-in when they are recorded. */
  const snapshot = () => withCallers(recording.snapshot(), callers);
  let changed = true;
  let writing: Promise<void> = Promise.resolve();
  /** The failure of the last write, if it failed. */
  let failure: Error | undefined;
  let timer: NodeJS.Timeout | undefined;
  let release: (() => void) | undefined;

  /** Writes the whole file, if anything changed, after the write under way. */
  function flush(): Promise<void> {
    writing = writing.then(async () => {
      if (!changed) return;
      changed = false;
      try {
        const { first, last } = recording;
        await writeWhole(file, fileText(file, snapshot(), { first, last, count: recording.count(), keys }));
        failure = undefined;
      } catch (error) {
        changed = true;
        failure = error as Error;
        logger?.error({ err: error, file }, "the recording cannot be written");
      }
    });
    return writing;
  }

  return {
    answered: (operationId, status, body, apiKey) => {
      if (recording.answered(operationId, status, body)) changed = true;
      if (callers && apiKey !== undefined && callers.answered(apiKey, operationId, status, parsed(body)))
        changed = true;
    },
    start: async () => {
      release = lockRecording(file);
      // The empty recording, at once: the file exists (and says what it is) from the start, or the start fails.
      await flush();
      if (failure) {
        release();
        release = undefined;
        throw new RecordingRefused(`--record ${file}: cannot be written: ${failure.message}`);
      }
      timer = setInterval(() => void flush(), intervalMs);
      timer.unref();
    },
    flush,
    snapshot,
    close: async () => {
      if (!release) return;
      clearInterval(timer);
      await flush();
      release();
      release = undefined;
      if (failure) throw new Error(`the recording ${file} cannot be written: ${failure.message}`, { cause: failure });
    },
  };
}

/** The wrapper of the handler that gives `recorder` each answer that passed the check, once it is answered. */
export function recordAnswers(recorder: Recorder): HandlerWrapper {
  return (handler) => async (req, res, notes) => {
    await handler(req, res, notes);
    const { conforming, record } = notes;
    if (conforming && record.operationId !== undefined)
      recorder.answered(record.operationId, res.statusCode, conforming, bearerToken(req));
  };
}
