/** The "Search" tag: searchResources. */

import type { operations } from "@compute-api/spec/types";
import { Router } from "express";
import type { Store } from "../store/store.js";
import type { ResponseBody } from "../types.js";
import type { Callers } from "./callers.js";

type SearchResources = operations["searchResources"];

/** GET /v1/resources/search. */
export function searchRoutes(store: Store, callers: Callers): Router {
  return Router().get<
    Record<string, never>,
    ResponseBody<"searchResources">,
    never,
    SearchResources["parameters"]["query"]
  >("/v1/resources/search", (req, res) => {
    res.json({ results: store.search(callers.of(req), req.query.query) });
  });
}
