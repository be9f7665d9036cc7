/**
 * Recording (`compute-gateway --record <file>`): what the backend answers, kept as a fixture file the stub serves
 * (`compute-stub --data <file>`), so that a team gets a stateful stub of its own account. Kept: the resources of
 * searchResources' answers and updateClusterMachine's (a machine goes into its cluster), merged by id, the newest
 * answer winning — only answers that passed the contract's check. Never kept: API keys (createApiKey's answer is
 * not read), the `Authorization` header, request bodies, and any string of the form of a key (`cak_…`), in case a
 * resource's field holds one. Users are not recorded: the file has one stand-in user who may see everything in it,
 * and its header says how to add others.
 *
 * The file is YAML — a header of comments, then the data as JSON, which YAML reads as it is — written whole to a
 * temporary file renamed over the last (a reader never sees half a file): every `intervalMs` when something
 * changed, and at the end (the drain, SIGINT, SIGTERM).
 */
import { rename, writeFile } from "node:fs/promises";
import { extname } from "node:path";
import type { Logger } from "@compute-api/runtime";
import { type Resource, recordedUserId, scrub, snapshotOf } from "./record-data.js";

export { recordedUserId, unrecordedBillingAccountId } from "./record-data.js";

/** Options of a recorder. */
export interface RecorderOptions {
  /** The file, `.yaml` or `.yml`. */
  file: string;
  /** How often the file is written when something changed, in ms; default 5000. */
  intervalMs?: number;
  logger?: Logger;
}

/** A recording in progress. */
export interface Recorder {
  /** The response path's hook: a 200 answer that passed the contract's check, its body decoded. */
  answered(operationId: string, status: number, body: Uint8Array): void;
  /** Writes the file now if anything changed since it was last written. */
  flush(): Promise<void>;
  /** Stops the periodic writes and writes the file a last time. */
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
 * Starts a recording into `file`. A fixture file names its collections after the resource types
 * (`virtualMachine` → `virtualMachines`), as @compute-api/fixtures does; billing accounts and projects by id, a
 * project's resources by project and id.
 */
export function createRecorder({ file, intervalMs = 5000, logger }: RecorderOptions): Recorder {
  const problem = recordFileProblem(file);
  if (problem) throw new Error(`--record ${file}: ${problem}`);
  /** By collection (`clusters`), then `projectId/id` (or `id`). */
  const collections = new Map<string, Map<string, Resource>>();
  /** Machines whose cluster no answer showed yet, by `projectId/id`. */
  const loneMachines = new Map<string, Resource>();
  let changed = false;
  let first: string | undefined;
  let last: string | undefined;
  let writing: Promise<void> = Promise.resolve();

  const keyOf = (r: Resource) => (r.projectId === undefined ? r.id : `${r.projectId}/${r.id}`);
  const collection = (name: string) => {
    let found = collections.get(name);
    if (!found) {
      found = new Map();
      collections.set(name, found);
    }
    return found;
  };
  const seen = () => {
    last = new Date().toISOString();
    first ??= last;
    changed = true;
  };

  /** A resource of a search answer, the newest of its id. */
  function keep(type: string, resource: Resource): void {
    collection(`${type}s`).set(keyOf(resource), resource);
    if (type === "cluster")
      for (const machine of (resource.machines as Resource[] | undefined) ?? []) loneMachines.delete(keyOf(machine));
  }

  /** A machine of a PATCH answer: into its cluster, where one was seen; else kept aside until one is. */
  function keepMachine(machine: Resource): void {
    for (const cluster of collections.get("clusters")?.values() ?? []) {
      if (cluster.projectId !== machine.projectId) continue;
      const machines = (cluster.machines as Resource[] | undefined) ?? [];
      const at = machines.findIndex((m) => m.id === machine.id);
      if (at >= 0) {
        machines[at] = machine;
        return;
      }
    }
    loneMachines.set(keyOf(machine), machine);
  }

  function answered(operationId: string, status: number, body: Uint8Array): void {
    if (status !== 200 || (operationId !== "searchResources" && operationId !== "updateClusterMachine")) return;
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8"));
    } catch {
      return;
    }
    if (operationId === "updateClusterMachine") keepMachine(scrub(value as Resource));
    else
      for (const result of (value as { results?: Record<string, unknown>[] }).results ?? []) {
        const type = result.resourceType;
        const resource = typeof type === "string" ? result[type] : undefined;
        if (resource && typeof resource === "object") keep(type as string, scrub(resource as Resource));
      }
    seen();
  }

  /** The data set, servable: stand-ins for what answers named but never showed, and one user who sees it all. */
  const snapshot = () => snapshotOf(collections, loneMachines);

  /** The file's text: the header, then the data as JSON (which YAML reads as it is). */
  function text(): string {
    const { data, notes } = snapshot();
    const count = [...collections.values()].reduce((sum, c) => sum + c.size, 0);
    const header = [
      `Recorded by compute-gateway --record${first ? ` from ${first} to ${last}` : ""}: ${count} resources, from the`,
      "answers of searchResources and updateClusterMachine, merged by id (the newest answer wins). No API key, no",
      "Authorization value and no request body is in this file.",
      "",
      `Serve it: compute-stub --data ${file}`,
      `Users are not recorded: '${recordedUserId}' below is a stand-in who may see everything here; compute-stub gives`,
      'the first user a key (printed at start, or --api-key). To add a user, add an entry to "users":',
      '  {"id": "ci", "projectIds": ["…"], "billingAccountIds": ["…"], "apiKeys": [{"id": "default", "sha256": "<SHA-256 of the key>"}]}',
      '(or "key": "<the key>" in clear), as in @compute-api/stub-server\'s examples/fixtures.yaml.',
      ...(notes.length > 0 ? ["", ...notes] : []),
    ];
    return `${header.map((line) => (line === "" ? "#" : `# ${line}`)).join("\n")}\n${JSON.stringify(data, null, 2)}\n`;
  }

  /** Writes the whole file to a temporary one beside it, then renames it over the last. */
  function flush(): Promise<void> {
    writing = writing.then(async () => {
      if (!changed) return;
      changed = false;
      const temporary = `${file}.${process.pid}.tmp`;
      try {
        await writeFile(temporary, text(), { mode: 0o600 });
        await rename(temporary, file);
      } catch (error) {
        changed = true;
        logger?.error({ err: error, file }, "the recording cannot be written");
      }
    });
    return writing;
  }

  const timer = setInterval(() => void flush(), intervalMs);
  timer.unref();
  // An empty recording is written at once, so that the file exists (and says what it is) from the start.
  changed = true;
  void flush();
  return {
    answered,
    flush,
    snapshot,
    close: async () => {
      clearInterval(timer);
      await flush();
    },
  };
}
