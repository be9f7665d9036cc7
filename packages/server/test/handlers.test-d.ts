/**
 * The handler map is checked by the compiler against the spec: every operation needs a handler, each handler is
 * given its typed path, query, body and principal, and must return the operation's documented 200 body.
 */
import type { components } from "@compute-api/spec/types";
import { describe, expectTypeOf, test } from "vitest";
import { createComputeServer, type HandlerInput, type Handlers, type ResponseBody } from "../src/index.js";

type Schemas = components["schemas"];
interface Caller {
  userId: string;
}

const machine: Schemas["ClusterMachine"] = { id: "cm-alpha-01", projectId: "proj-alpha", powerState: "ON" };

/** The three operations these tests are about. */
type Three = "updateClusterMachine" | "createApiKey" | "searchResources";
/** Handlers of the spec's other operations, whatever they are (none when the spec has only the three). */
declare const others: Omit<Handlers<Caller>, Three>;

const handlers: Handlers<Caller> = {
  ...others,
  updateClusterMachine: () => machine,
  createApiKey: async ({ body }) => ({ id: body.apikeyId, createTime: "2026-01-01T00:00:00Z", key: "cak_x" }),
  searchResources: () => ({ results: [] }),
};

describe("createComputeServer's handler types", () => {
  test("each handler is given its operation's typed inputs and the principal", () => {
    expectTypeOf<HandlerInput<"updateClusterMachine", Caller>["path"]>().toEqualTypeOf<{
      projectId: string;
      id: string;
    }>();
    expectTypeOf<HandlerInput<"updateClusterMachine", Caller>["body"]>().toEqualTypeOf<
      Schemas["UpdateClusterMachineRequest"]
    >();
    expectTypeOf<HandlerInput<"createApiKey", Caller>["body"]>().toEqualTypeOf<Schemas["CreateApiKeyRequest"]>();
    expectTypeOf<HandlerInput<"searchResources", Caller>["query"]>().toEqualTypeOf<{ query: string }>();
    expectTypeOf<HandlerInput<"searchResources", Caller>["body"]>().toEqualTypeOf<undefined>();
    expectTypeOf<HandlerInput<"createApiKey", Caller>["principal"]>().toEqualTypeOf<Caller>();
  });

  test("a handler returns the documented 200 body", () => {
    expectTypeOf<ResponseBody<"updateClusterMachine">>().toEqualTypeOf<Schemas["ClusterMachine"]>();
    expectTypeOf<ResponseBody<"createApiKey">>().toEqualTypeOf<Schemas["ApiKeyCreated"]>();
    expectTypeOf<ResponseBody<"searchResources">>().toEqualTypeOf<Schemas["SearchResourcesResponse"]>();
  });

  test("a full handler map compiles; the principal's type comes from authenticate", () => {
    void createComputeServer<Caller>({ authenticate: (token) => ({ userId: token }), handlers });
    void createComputeServer({
      authenticate: () => ({ userId: "alice" }),
      handlers: {
        ...handlers,
        searchResources: ({ principal }) => {
          expectTypeOf(principal).toEqualTypeOf<{ userId: string }>();
          return { results: [] };
        },
      },
    });
  });

  test("a missing handler is a compile error", () => {
    // @ts-expect-error searchResources is missing
    const missing: Handlers<Caller> = {
      ...others,
      updateClusterMachine: handlers.updateClusterMachine,
      createApiKey: handlers.createApiKey,
    };
    void missing;
  });

  test("a return value that is not the documented 200 body is a compile error", () => {
    const wrong: Handlers<Caller> = {
      ...handlers,
      // @ts-expect-error a search answers { results }, not a bare array
      searchResources: () => [],
    };
    const wrongField: Handlers<Caller> = {
      ...handlers,
      // @ts-expect-error the created key's field is `key`, not `apiKey`
      createApiKey: ({ body }) => ({ id: body.apikeyId, createTime: "2026-01-01T00:00:00Z", apiKey: "cak_x" }),
    };
    const wrongAsync: Handlers<Caller> = {
      ...handlers,
      // @ts-expect-error a machine's powerState is one of the spec's enum values
      updateClusterMachine: async () => ({ ...machine, powerState: "HALF_ON" }),
    };
    void [wrong, wrongField, wrongAsync];
  });

  test("a wrong parameter name is a compile error", () => {
    const wrongParameter: Handlers<Caller> = {
      ...handlers,
      updateClusterMachine: ({ path }) => {
        // @ts-expect-error the path parameter is `id`, not `machineId`
        void path.machineId;
        return machine;
      },
      searchResources: ({ query }) => {
        // @ts-expect-error the query parameter is `query`, not `q`
        void query.q;
        return { results: [] };
      },
    };
    void wrongParameter;
  });

  test("a handler for an operation the spec does not have is a compile error", () => {
    const extra: Handlers<Caller> = {
      ...handlers,
      // @ts-expect-error deleteClusterMachine is not an operation of the spec
      deleteClusterMachine: () => machine,
    };
    void extra;
  });
});
