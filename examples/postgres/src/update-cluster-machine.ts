/**
 * updateClusterMachine, in one transaction: the caller's access to the project, the machine, then its cluster's
 * row locked (`FOR UPDATE`), so that concurrent changes to machines of one cluster run one after the other and
 * the totals, recomputed from every machine, always agree with them. A failure changes nothing.
 * @see openapi/paths/v1_projects_{projectId}_cluster-machines_{id}.yaml
 */
import { clusterMachineNotFound, priceChange, projectDenied, volumeNotFound } from "@compute-api/rules";
import {
  type FieldViolation,
  invalidRequest,
  type RequestBody,
  type ResponseBody,
  type Schemas,
} from "@compute-api/server";
import type { Principal } from "./authenticate.js";
import type { Database } from "./database/database.js";

type ClusterMachine = Schemas["ClusterMachine"];

/** Sets the fields present in the body, keeps the others; returns the whole machine after the change. */
export function updateClusterMachine(
  db: Database,
  user: Principal,
  projectId: string,
  id: string,
  body: RequestBody<"updateClusterMachine">,
  signal?: AbortSignal,
): Promise<ResponseBody<"updateClusterMachine">> {
  return db.transaction(
    async (tx) => {
      const [access] = await tx.query("SELECT 1 FROM user_projects WHERE user_id = $1 AND project_id = $2", [
        user.id,
        projectId,
      ]);
      if (!access) throw projectDenied(projectId);
      // The cluster's row is the lock of all its machines; taken before any of them is read.
      const [found] = await tx.query<{ cluster_id: string }>(
        `SELECT m.cluster_id FROM cluster_machines m
       JOIN clusters c ON c.project_id = m.project_id AND c.id = m.cluster_id
       WHERE m.project_id = $1 AND m.id = $2
       FOR UPDATE OF c`,
        [projectId, id],
      );
      if (!found) throw clusterMachineNotFound(projectId, id);
      const machines = await tx.query<{ id: string; spec: ClusterMachine }>(
        "SELECT id, spec FROM cluster_machines WHERE project_id = $1 AND cluster_id = $2 ORDER BY position",
        [projectId, found.cluster_id],
      );

      // Check everything before changing anything, in the order the stub reports it: volumes, then the price.
      const violations: FieldViolation[] = [];
      if (body.volumeIds && body.volumeIds.length > 0) {
        const existing = new Set(
          (
            await tx.query<{ id: string }>("SELECT id FROM volumes WHERE project_id = $1 AND id = ANY($2::text[])", [
              projectId,
              body.volumeIds,
            ])
          ).map((row) => row.id),
        );
        body.volumeIds.forEach((volumeId, i) => {
          if (!existing.has(volumeId)) violations.push(volumeNotFound(i, volumeId, projectId));
        });
      }
      const {
        price,
        totals,
        violations: priceViolations,
      } = priceChange(
        machines.map((m) => m.spec),
        (m) => m.id === id,
        body.priceHr,
      );
      violations.push(...priceViolations);
      if (violations.length > 0) throw invalidRequest(violations);

      const change: Partial<ClusterMachine> = {
        ...(body.powerState === undefined ? {} : { powerState: body.powerState }),
        ...(body.state === undefined ? {} : { state: body.state }),
        ...(price === undefined ? {} : { priceHr: { value: price } }),
        ...(body.volumeIds === undefined ? {} : { volumeIds: body.volumeIds }),
      };
      const [updated] = await tx.query<{ spec: ClusterMachine }>(
        "UPDATE cluster_machines SET spec = spec || $3::jsonb WHERE project_id = $1 AND id = $2 RETURNING spec",
        [projectId, id, JSON.stringify(change)],
      );
      await tx.query("UPDATE clusters SET spec = spec || $3::jsonb WHERE project_id = $1 AND id = $2", [
        projectId,
        found.cluster_id,
        JSON.stringify(totals),
      ]);
      // The cluster's search values come from its top-level string fields, which this never changes (machines are
      // objects, totals numbers and Decimals): search_values needs no update.
      return (updated as { spec: ClusterMachine }).spec;
    },
    signal ? { signal } : {},
  );
}
