/**
 * The operations the stub's store implements, statefully, written once: the Express app (app.ts, through @compute-api/server)
 * and the MSW handlers (msw/) both call these with a request already routed, authenticated and validated.
 */
import type { HandlerInput, OperationId, ResponseBody } from "@compute-api/server";
import type { Store, User } from "./store/store.js";

/** What an operation is given: the request's valid path, query and body, and the user its key acts for. */
export type StoreOperationInput<Op extends OperationId> = Pick<
  HandlerInput<Op, User>,
  "path" | "query" | "body" | "principal"
>;

/**
 * Operations of the store, by operationId; each throws the contract's ApiErrors. The spec's other operations are
 * answered from its examples (example-answers.ts).
 */
export type StoreOperations = { [Op in OperationId]?: (input: StoreOperationInput<Op>) => ResponseBody<Op> };

/** The operations of a store. */
export function storeOperations(store: Store): StoreOperations {
  return {
    updateClusterMachine: ({ principal, path, body }) =>
      store.updateClusterMachine(principal, path.projectId, path.id, body),
    createApiKey: ({ principal, body }) => store.createApiKey(principal, body.apikeyId),
    searchResources: ({ principal, query }) => ({ results: store.search(principal, query.query) }),
  };
}
