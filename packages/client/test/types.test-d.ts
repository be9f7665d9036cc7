import { describe, expectTypeOf, test } from "vitest";
import type {
  Cluster,
  ClusterMachine,
  ClusterMachineState,
  components,
  ErrorDetail,
  MachinePowerState,
  operations,
  paths,
  SearchResult,
  Volume,
} from "../src/index.js";
import { isBadRequestDetail, isRetryInfoDetail } from "../src/index.js";

describe("type exports", () => {
  test("aliases are the generated schemas", () => {
    expectTypeOf<ClusterMachine>().toEqualTypeOf<components["schemas"]["ClusterMachine"]>();
    expectTypeOf<MachinePowerState>().toEqualTypeOf<
      "MACHINE_POWER_STATE_UNSPECIFIED" | "ON" | "OFF" | "POWERING_ON" | "POWERING_OFF" | "REBOOTING"
    >();
    expectTypeOf<ClusterMachineState>().toEqualTypeOf<
      "STATE_UNSPECIFIED" | "CREATING" | "ACTIVE" | "DELETING" | "FAILED"
    >();
    expectTypeOf<operations["searchResources"]["parameters"]["query"]>().toEqualTypeOf<{ query: string }>();
    expectTypeOf<"/v1/projects/{projectId}/cluster-machines/{id}" | "/v1/api-keys" | "/v1/resources/search">().toExtend<
      keyof paths
    >();
  });

  test("narrowing SearchResult on resourceType gives the matching typed object", () => {
    const describeResult = (result: SearchResult): string => {
      switch (result.resourceType) {
        case "cluster":
          expectTypeOf(result.cluster).toEqualTypeOf<Cluster>();
          // @ts-expect-error a cluster result has no volume
          return result.volume.id;
        case "volume":
          expectTypeOf(result.volume).toEqualTypeOf<Volume>();
          return result.volume.id;
        default:
          return result.resourceName;
      }
    };
    expectTypeOf(describeResult).returns.toEqualTypeOf<string>();
  });

  test("the error detail guards narrow the open-ended ErrorDetail union", () => {
    const detail = {} as ErrorDetail;
    if (isBadRequestDetail(detail))
      expectTypeOf(detail.fieldViolations).toEqualTypeOf<components["schemas"]["FieldViolation"][]>();
    if (isRetryInfoDetail(detail)) expectTypeOf(detail.retryDelay).toEqualTypeOf<string>();
    // @ts-expect-error without a guard, UnknownErrorDetail keeps fieldViolations out of reach
    void detail.fieldViolations;
  });
});
