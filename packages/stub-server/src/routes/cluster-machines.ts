/** The "Cluster machines" tag: updateClusterMachine. */

import type { operations } from "@compute-api/spec/types";
import { Router } from "express";
import type { Store } from "../store/store.js";
import type { ResponseBody } from "../types.js";
import type { Callers } from "./callers.js";

type UpdateClusterMachine = operations["updateClusterMachine"];

/** PATCH /v1/projects/{projectId}/cluster-machines/{id}. */
export function clusterMachineRoutes(store: Store, callers: Callers): Router {
  return Router().patch<
    UpdateClusterMachine["parameters"]["path"],
    ResponseBody<"updateClusterMachine">,
    UpdateClusterMachine["requestBody"]["content"]["application/json"]
  >("/v1/projects/:projectId/cluster-machines/:id", (req, res) => {
    res.json(store.updateClusterMachine(callers.of(req), req.params.projectId, req.params.id, req.body));
  });
}
