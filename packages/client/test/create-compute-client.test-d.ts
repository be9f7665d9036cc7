import { describe, expectTypeOf, test } from "vitest";
import type { ApiKeyCreated, ClusterMachine, ErrorBody, SearchResourcesResponse, SearchResult } from "../src/index.js";
import { ComputeNetworkError, createComputeClient } from "../src/index.js";

const client = createComputeClient({ baseUrl: "https://compute.example", apiKey: "k" });
const machine = { params: { path: { projectId: "proj-alpha", id: "cm-alpha-01" } } } as const;

describe("createComputeClient types", () => {
  test("the three operations return their typed data and the one error body", async () => {
    const updated = await client.PATCH("/v1/projects/{projectId}/cluster-machines/{id}", {
      ...machine,
      body: { powerState: "ON", priceHr: { value: "2.5" } },
    });
    expectTypeOf(updated.data).toEqualTypeOf<ClusterMachine | undefined>();
    expectTypeOf(updated.error).toEqualTypeOf<ErrorBody | undefined>();

    const created = await client.POST("/v1/api-keys", { body: { apikeyId: "ci-deploy-key" } });
    expectTypeOf(created.data).toEqualTypeOf<ApiKeyCreated | undefined>();
    expectTypeOf(created.error).toEqualTypeOf<ErrorBody | undefined>();

    const found = await client.GET("/v1/resources/search", { params: { query: { query: "type:cluster" } } });
    expectTypeOf(found.error).toEqualTypeOf<ErrorBody | undefined>();
    // openapi-fetch maps response types through its Readable<> helper, which flattens the intersections of the
    // search result types, so the check is mutual assignability rather than identity.
    expectTypeOf<NonNullable<typeof found.data>>().toExtend<SearchResourcesResponse>();
    expectTypeOf<SearchResourcesResponse>().toExtend<NonNullable<typeof found.data>>();
  });

  test("narrowing a search result from a response on resourceType needs no cast", async () => {
    const { data } = await client.GET("/v1/resources/search", { params: { query: { query: "alpha" } } });
    for (const result of data?.results ?? []) {
      if (result.resourceType === "volume") expectTypeOf(result.volume.sizeGib).toEqualTypeOf<number>();
      if (result.resourceType === "cluster") expectTypeOf(result.cluster.machineCount).toEqualTypeOf<number>();
      expectTypeOf(result).toExtend<SearchResult>();
    }
  });

  test("a wrong enum value is a compile error", () => {
    void client.PATCH("/v1/projects/{projectId}/cluster-machines/{id}", {
      ...machine,
      // @ts-expect-error "SLEEPING" is not a MachinePowerState
      body: { powerState: "SLEEPING" },
    });
    // @ts-expect-error "RUNNING" is not a ClusterMachineState
    void client.PATCH("/v1/projects/{projectId}/cluster-machines/{id}", { ...machine, body: { state: "RUNNING" } });
  });

  test("a missing query is a compile error", () => {
    // @ts-expect-error the search needs its options
    void client.GET("/v1/resources/search");
    // @ts-expect-error the search needs params.query
    void client.GET("/v1/resources/search", {});
    // @ts-expect-error the search needs params.query.query
    void client.GET("/v1/resources/search", { params: { query: {} } });
  });

  test("an unknown body field is a compile error", () => {
    // @ts-expect-error CreateApiKeyRequest has no field "name"
    void client.POST("/v1/api-keys", { body: { apikeyId: "ci-deploy-key", name: "deploy" } });
    void client.PATCH("/v1/projects/{projectId}/cluster-machines/{id}", {
      ...machine,
      // @ts-expect-error UpdateClusterMachineRequest has no field "volumes"
      body: { volumeIds: [], volumes: [] },
    });
    // @ts-expect-error the search has no query parameter "limit"
    void client.GET("/v1/resources/search", { params: { query: { query: "alpha", limit: 10 } } });
  });

  test("a misspelled path or a path without that method is a compile error", () => {
    // @ts-expect-error "/v1/resource/search" is not a path of the spec
    void client.GET("/v1/resource/search", { params: { query: { query: "alpha" } } });
    // @ts-expect-error the search path has no POST
    void client.POST("/v1/resources/search", { params: { query: { query: "alpha" } } });
    // @ts-expect-error "clusterMachines" is not the spelling of the path
    void client.PATCH("/v1/projects/{projectId}/clusterMachines/{id}", { ...machine, body: { powerState: "ON" } });
  });

  test("path parameters are required", () => {
    void client.PATCH("/v1/projects/{projectId}/cluster-machines/{id}", {
      // @ts-expect-error the PATCH needs params.path.id
      params: { path: { projectId: "p" } },
      body: {},
    });
  });

  test("fetch options such as signal still type-check", () => {
    void client.GET("/v1/resources/search", { params: { query: { query: "alpha" } }, signal: AbortSignal.timeout(5) });
  });

  test("options are typed", () => {
    createComputeClient({
      baseUrl: "https://compute.example",
      apiKey: async () => "rotated",
      retry: false,
      timeoutMs: 0,
    });
    // @ts-expect-error the API key is required
    createComputeClient({ baseUrl: "https://compute.example" });
    // @ts-expect-error a number is not a key
    createComputeClient({ baseUrl: "https://compute.example", apiKey: 42 });
  });

  test("an environment variable can be passed as the key as it is; a missing one is refused at run time", () => {
    expectTypeOf(process.env.COMPUTE_API_KEY).toEqualTypeOf<string | undefined>();
    createComputeClient({ baseUrl: "https://compute.example", apiKey: process.env.COMPUTE_API_KEY });
  });

  test("a network error is typed", () => {
    const error = new ComputeNetworkError({ baseUrl: "https://compute.example", method: "GET", path: "/", cause: 1 });
    expectTypeOf(error).toExtend<Error>();
    expectTypeOf(error.baseUrl).toEqualTypeOf<string>();
    expectTypeOf(error.code).toEqualTypeOf<string | undefined>();
    expectTypeOf(error.cause).toEqualTypeOf<unknown>();
  });
});
