/**
 * Schema-valid requests of every operation, sent by the typed client with a valid key, straight to the stub
 * and through the gateway: never a 5xx, never a 400 for a schema reason — 200, 403, 404 or 409 exactly when the
 * data says so, or a 400 naming only rules the schema cannot express (support/oracle.ts). Requests are biased
 * towards ids that exist so that the 200 path is taken; a refused PATCH changes nothing, an accepted one shows
 * in its cluster, and a created key works for its user.
 */
import { type ComputeClient, createComputeClient, type UpdateClusterMachineRequest } from "@compute-api/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterState, violationsOf } from "./support/checks.js";
import { facts } from "./support/facts.js";
import {
  createKeyProblems,
  keyCases,
  patchCases,
  patchProblems,
  searchCases,
  searchProblems,
} from "./support/oracle.js";
import { checkProperty, count, flushCounts } from "./support/property.js";
import { startTarget, type Target, type TargetName, type UserId } from "./support/targets.js";

const file = "test/adversarial/valid-requests.test.ts";
const defaultRuns = 40;

describe.each<TargetName>(["stub", "gateway"])("schema-valid requests, %s", (targetName) => {
  let target: Target;
  const clients = {} as Record<UserId, ComputeClient>;
  /** Key ids each user has, to know when createApiKey must answer 409. */
  const keyIds = new Map<UserId, Set<string>>();

  beforeAll(async () => {
    target = await startTarget(targetName);
    for (const u of facts.users) {
      clients[u] = createComputeClient({
        baseUrl: target.url,
        apiKey: target.keys[u],
        retry: false,
        timeoutMs: 10_000,
      });
      keyIds.set(u, new Set(facts.initialKeyIds(u)));
    }
  });
  afterAll(async () => {
    flushCounts();
    await target?.close();
  });

  it("updateClusterMachine: 403, 404 or 200 as the data says, 400 only for volumes of another project or prices too long once normalized; a refusal changes nothing", async () => {
    await checkProperty(
      file,
      patchCases,
      async ({ user, input }) => {
        const { projectId = "", id = "" } = input.path;
        const machine = facts.machine(projectId, id);
        const reader = machine && facts.readerOf(projectId);
        const readKey = reader ? target.keys[reader] : "";
        const before = machine ? await clusterState(target.stubUrl, readKey, machine.clusterId) : undefined;

        const body = input.body as UpdateClusterMachineRequest;
        const { data, error, response } = await clients[user].PATCH("/v1/projects/{projectId}/cluster-machines/{id}", {
          params: { path: { projectId, id } },
          body,
        });
        const outcome = { status: response.status, body: data ?? error };
        const why = [...new Set(violationsOf(outcome.body).map((v) => `${v.field.replace(/\d+/g, "i")} ${v.reason}`))]
          .sort()
          .join(", ");
        count(`${targetName} updateClusterMachine ${outcome.status}${why ? ` (${why})` : ""}`);
        expect(
          patchProblems(user, input, outcome),
          `${outcome.status} ${JSON.stringify(outcome.body).slice(0, 500)}`,
        ).toEqual([]);

        if (machine) {
          const after = (await clusterState(target.stubUrl, readKey, machine.clusterId)) as {
            machines?: { id: string }[];
          };
          if (outcome.status !== 200) expect(after, "a refused PATCH changed the cluster").toEqual(before);
          else
            expect(
              after.machines?.find((m) => m.id === id),
              "the cluster does not show the accepted PATCH",
            ).toEqual(data);
        }
      },
      defaultRuns,
    );
  });

  it("createApiKey: 200 with a key that works for the same user, 403 for a user who may not create keys, 409 for an id the user has", async () => {
    await checkProperty(
      file,
      keyCases,
      async ({ user, input }) => {
        const body = input.body as { apikeyId: string };
        const { data, error, response } = await clients[user].POST("/v1/api-keys", { body });
        const outcome = { status: response.status, body: data ?? error };
        count(`${targetName} createApiKey ${outcome.status}`);
        const ids = keyIds.get(user) ?? new Set();
        expect(
          createKeyProblems(user, input, outcome, ids),
          `${outcome.status} ${JSON.stringify(outcome.body).slice(0, 500)}`,
        ).toEqual([]);
        if (data) {
          ids.add(body.apikeyId);
          const created = createComputeClient({ baseUrl: target.url, apiKey: data.key, retry: false });
          const { data: found } = await created.GET("/v1/resources/search", {
            params: { query: { query: "type:project" } },
          });
          expect(
            new Set(found?.results.map((r) => r.resourceName.replace(/^projects\//, ""))),
            "the new key does not act for its user",
          ).toEqual(facts.projectsOf(user));
        }
      },
      defaultRuns,
    );
  });

  it("searchResources: 200 with only what the user may access, best first; 400 only for no terms, an unknown or a repeated type: term, more than 8 other terms", async () => {
    await checkProperty(
      file,
      searchCases,
      async ({ user, input }) => {
        const query = input.query[0]?.[1] ?? "";
        const { data, error, response } = await clients[user].GET("/v1/resources/search", {
          params: { query: { query } },
        });
        const outcome = { status: response.status, body: data ?? error };
        count(`${targetName} searchResources ${outcome.status}${data?.results.length ? " with results" : ""}`);
        expect(
          searchProblems(user, input, outcome),
          `${JSON.stringify(query)} → ${outcome.status} ${JSON.stringify(outcome.body).slice(0, 500)}`,
        ).toEqual([]);
      },
      defaultRuns,
    );
  });
});
