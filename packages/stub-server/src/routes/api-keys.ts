/** The "API keys" tag: createApiKey. */

import type { operations } from "@compute-api/spec/types";
import { Router } from "express";
import type { Store } from "../store/store.js";
import type { ResponseBody } from "../types.js";
import type { Callers } from "./callers.js";

type CreateApiKey = operations["createApiKey"];

/** POST /v1/api-keys. */
export function apiKeyRoutes(store: Store, callers: Callers): Router {
  return Router().post<
    Record<string, never>,
    ResponseBody<"createApiKey">,
    CreateApiKey["requestBody"]["content"]["application/json"]
  >("/v1/api-keys", (req, res) => {
    const created = store.createApiKey(callers.of(req), req.body.apikeyId);
    // The body holds a secret that must not linger in any cache.
    res.set("Cache-Control", "no-store").json(created);
  });
}
