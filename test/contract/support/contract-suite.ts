/**
 * The contract suite: the typed client (@compute-api/client) against a real backend on an ephemeral 127.0.0.1
 * port — the stub, or another implementation serving the built-in data (examples/postgres) — either directly or
 * through the real validation gateway in front of it. Every operation and every
 * documented (operation, status) pair is produced for real and exercised — the failures the data cannot cause
 * with the stub's `Prefer: code=…`, and through the gateway its own 502 (a stub that drops connections) and 504
 * (a stub slower than the gateway's timeout); every answer is checked against the spec, and the last test fails
 * when a documented pair was never seen.
 */
import { type ComputeClient, createComputeClient, normalizeDecimal } from "@compute-api/client";
import { builtinFixtures } from "@compute-api/fixtures";
import { createGateway } from "@compute-api/gateway";
import { createLogger } from "@compute-api/runtime";
import { startServer } from "@compute-api/stub-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations, problems, recordingFetch, seen } from "./recorder.js";

/** How long the suite's gateways give the stub, in ms; a stub asked to wait longer makes the gateway answer 504. */
const gatewayTimeoutMs = 1000;

/** Where the client sends its requests: to the stub, or to a gateway whose upstream is the stub. */
export type Target = "direct" | "gateway";

/** A running backend: its base URL, and close(). */
export interface RunningBackend {
  url: string;
  close(): Promise<void>;
}

/** A backend the suite can hold to the spec: it serves the built-in data and gives each user the key it is told. */
export interface Backend {
  /** Its name in the tests' titles. */
  name: string;
  /** Starts it on 127.0.0.1 with a free port, with an API key per user (`{ alice: "cak_…" }`). */
  start(options: { apiKeys: Record<string, string>; compress: boolean }): Promise<RunningBackend>;
  /**
   * Whether it answers the stub's `Prefer: code=…, latency=…` (and can drop connections), so that the failures
   * the data cannot cause (429, 500, 502, 503, 504) are produced for real. Without, they are left out of the
   * coverage check, each named.
   */
  faults: boolean;
}

/** The stub server, which injects every failure it is asked for. */
export const stubBackend: Backend = {
  name: "the stub",
  start: ({ apiKeys, compress }) => startServer({ port: 0, host: "127.0.0.1", apiKeys, compress }),
  faults: true,
};

/** Statuses only an injected fault produces from a backend on the built-in data. */
const faultStatuses = ["429", "500", "502", "503", "504"];

/** How the suite runs: against which backend; `compress` makes it compress its answers as production backends do, and every request accept gzip, deflate and br. */
export interface SuiteOptions {
  backend?: Backend;
  compress?: boolean;
  /**
   * Starts a gateway in front of `upstream` that gives it `timeoutMs` (default: the gateway in this process);
   * test/containers passes the gateway's container.
   */
  gateway?: (upstream: string, timeoutMs: number) => Promise<RunningBackend>;
}

/** The gateway in this process, on an ephemeral 127.0.0.1 port. */
async function inProcessGateway(upstream: string, timeoutMs: number): Promise<RunningBackend> {
  const app = await createGateway({ upstream, timeoutMs, logger: createLogger({ level: "silent" }) });
  const server = app.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await app.close();
    },
  };
}

/** Declares the whole contract suite against the given target. */
export function contractSuite(
  target: Target,
  { backend = stubBackend, compress = false, gateway = inProcessGateway }: SuiteOptions = {},
): void {
  const fixtures = builtinFixtures();
  type UserId = "alice" | "bob" | "carol" | "dave" | "erin";
  const keys: Record<UserId, string> = {
    alice: "cak_contract-alice",
    bob: "cak_contract-bob",
    carol: "cak_contract-carol",
    dave: "cak_contract-dave",
    erin: "cak_contract-erin",
  };

  let stub: RunningBackend;
  /** With the gateway and a backend with faults: a second stub that drops every connection, and a gateway in front of it (502). */
  let dropping: RunningBackend | undefined;
  const gateways: RunningBackend[] = [];
  let baseUrl: string;
  let droppingUrl: string | undefined;
  const clients = {} as Record<UserId, ComputeClient>;
  /** Content-Encoding of the answers, as they came (the client decodes them). */
  const encodings = new Map<string, number>();
  const compressingFetch = async (request: Request): Promise<Response> => {
    request.headers.set("accept-encoding", "gzip, deflate, br");
    const response = await recordingFetch(request);
    const encoding = response.headers.get("content-encoding") ?? "identity";
    encodings.set(encoding, (encodings.get(encoding) ?? 0) + 1);
    return response;
  };
  /** A client with the key, sending to the target (or to `url`). */
  const clientFor = (apiKey: string, url = baseUrl): ComputeClient =>
    createComputeClient({ baseUrl: url, apiKey, fetch: compress ? compressingFetch : recordingFetch, retry: false });

  /** A gateway in front of the upstream, listening on an ephemeral port; resolves with its URL. */
  async function gatewayFor(upstream: string): Promise<string> {
    const running = await gateway(upstream, gatewayTimeoutMs);
    gateways.push(running);
    return running.url;
  }

  beforeAll(async () => {
    stub = await backend.start({ apiKeys: keys, compress });
    baseUrl = stub.url;
    if (target === "gateway") {
      baseUrl = await gatewayFor(stub.url);
      if (backend.faults) {
        dropping = await startServer({ port: 0, host: "127.0.0.1", apiKeys: keys, compress, faults: { drop: 1 } });
        droppingUrl = await gatewayFor(dropping.url);
      }
    }
    for (const user of Object.keys(keys) as UserId[]) clients[user] = clientFor(keys[user]);
  });
  afterAll(async () => {
    for (const running of gateways) await running.close();
    await dropping?.close();
    await stub?.close();
  });

  const search = (client: ComputeClient, query: string) =>
    client.GET("/v1/resources/search", { params: { query: { query } } });
  const patch = (
    client: ComputeClient,
    projectId: string,
    id: string,
    body: Parameters<ComputeClient["PATCH"]>[1]["body"],
  ) => client.PATCH("/v1/projects/{projectId}/cluster-machines/{id}", { params: { path: { projectId, id } }, body });

  /** The cluster as the user's search shows it. */
  async function cluster(client: ComputeClient, id: string) {
    const { data } = await search(client, `type:cluster ${id}`);
    const result = data?.results.find((r) => r.resourceType === "cluster" && r.cluster.id === id);
    return result?.resourceType === "cluster" ? result.cluster : undefined;
  }

  describe("updateClusterMachine", () => {
    it("200: the whole machine, stored normalized", async () => {
      const { data, response } = await patch(clients.alice, "proj-alpha", "cm-alpha-01", {
        powerState: "POWERING_ON",
        priceHr: { value: "+.5E0" },
      });
      expect(response.status).toBe(200);
      expect(data).toMatchObject({
        id: "cm-alpha-01",
        projectId: "proj-alpha",
        powerState: "POWERING_ON",
        priceHr: { value: "0.5" },
      });
      expect(data?.priceHr?.value).toBe(normalizeDecimal("+.5E0"));
    });

    it("400: a volume of another project, named by index", async () => {
      const { error, response } = await patch(clients.alice, "proj-alpha", "cm-alpha-01", {
        volumeIds: ["vol-alpha-data", "vol-gamma-results"],
      });
      expect(response.status).toBe(400);
      expect(error?.details).toContainEqual(
        expect.objectContaining({ fieldViolations: [expect.objectContaining({ field: "volumeIds[1]" })] }),
      );
    });

    it("401: an unknown key", async () => {
      const { response } = await patch(clientFor("cak_nobody"), "proj-alpha", "cm-alpha-01", { state: "ACTIVE" });
      expect(response.status).toBe(401);
    });

    it("403: a project the caller may not access, existing or not", async () => {
      for (const projectId of ["proj-gamma", "proj-none"]) {
        const { response } = await patch(clients.alice, projectId, "cm-gamma-01", { state: "ACTIVE" });
        expect(response.status).toBe(403);
      }
    });

    it("404: a machine that is not in the project", async () => {
      const { response } = await patch(clients.alice, "proj-alpha", "cm-beta-01", { state: "ACTIVE" });
      expect(response.status).toBe(404);
    });

    it("413: a body over 1 MiB", async () => {
      const { response } = await patch(clients.alice, "proj-alpha", "cm-alpha-01", {
        volumeIds: Array.from({ length: 100_000 }, (_, i) => `vol-${i}-padding`),
      });
      expect(response.status).toBe(413);
    });

    it("415: a body that is not JSON", async () => {
      const { response } = await clients.alice.PATCH("/v1/projects/{projectId}/cluster-machines/{id}", {
        params: { path: { projectId: "proj-alpha", id: "cm-alpha-01" } },
        body: { state: "ACTIVE" },
        bodySerializer: () => "state=ACTIVE",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      });
      expect(response.status).toBe(415);
    });
  });

  describe("createApiKey", () => {
    it("200, then 409 for the same id", async () => {
      const first = await clients.carol.POST("/v1/api-keys", { body: { apikeyId: "contract-key" } });
      expect(first.response.status).toBe(200);
      expect(first.data?.key).toMatch(/^cak_/);
      const again = await clients.carol.POST("/v1/api-keys", { body: { apikeyId: "contract-key" } });
      expect(again.response.status).toBe(409);
      expect(again.error?.details).toContainEqual(expect.objectContaining({ reason: "ALREADY_EXISTS" }));
    });

    it("400, 401, 403, 413 and 415", async () => {
      const statuses = await Promise.all([
        clients.alice.POST("/v1/api-keys", { body: { apikeyId: "UPPER" } }),
        clientFor("cak_nobody").POST("/v1/api-keys", { body: { apikeyId: "nobody-key" } }),
        clients.dave.POST("/v1/api-keys", { body: { apikeyId: "dave-key" } }),
        clients.alice.POST("/v1/api-keys", { body: { apikeyId: "x".repeat(1024 * 1024) } }),
        clients.alice.POST("/v1/api-keys", {
          body: { apikeyId: "text-key" },
          bodySerializer: () => "text-key",
          headers: { "Content-Type": "text/plain" },
        }),
      ]).then((results) => results.map((r) => r.response.status));
      expect(statuses).toEqual([400, 401, 403, 413, 415]);
    });
  });

  describe("searchResources", () => {
    it("200: typed results, best first", async () => {
      const { data } = await search(clients.alice, "train type:cluster");
      expect(data?.results.map((r) => [r.resourceType, r.resourceName, r.score])).toEqual([
        ["cluster", "projects/proj-alpha/clusters/cl-train-01", 60],
      ]);
    });

    it("400 and 401", async () => {
      expect((await search(clients.alice, "type:planet")).response.status).toBe(400);
      expect((await search(clientFor("cak_nobody"), "train")).response.status).toBe(401);
    });
  });

  describe("flows", () => {
    it("create a key → use it → search → patch → search and the parent cluster show the patch", async () => {
      const created = await clients.bob.POST("/v1/api-keys", { body: { apikeyId: "flow-key" } });
      const bob = clientFor(created.data?.key ?? "");
      const before = await cluster(bob, "cl-batch-01");
      expect(before?.machines?.map((m) => m.id)).toEqual(["cm-beta-01", "cm-beta-02"]);

      const { data: machine } = await patch(bob, "proj-beta", "cm-beta-01", {
        powerState: "ON",
        priceHr: { value: "1.15" },
        volumeIds: [],
      });
      const after = await cluster(bob, "cl-batch-01");
      expect(after?.machines?.[0]).toEqual(machine);
      expect(after?.machines?.[1]).toEqual(before?.machines?.[1]);
      // 1.15 + 0.85, exactly.
      expect([after?.totalMachinePriceHr, after?.totalPriceHr]).toEqual([{ value: "2" }, { value: "2" }]);
      // The other user who may access proj-beta sees the same.
      expect(await cluster(clients.alice, "cl-batch-01")).toEqual(after);
    });

    it("each user sees and changes only what that user may access", async () => {
      for (const user of Object.keys(keys) as UserId[]) {
        const access = fixtures.users.find((u) => u.id === user);
        const allowed = new Set([
          ...(access?.projectIds ?? []).map((p) => `projects/${p}`),
          ...(access?.billingAccountIds ?? []).map((b) => `billingAccounts/${b}`),
        ]);
        for (const query of ["type:project", "type:billingAccount", "type:cluster", "type:volume", "a"]) {
          const { data } = await search(clients[user], query);
          for (const r of data?.results ?? [])
            expect(allowed, `${user}: ${r.resourceName}`).toContain(r.resourceName.split("/").slice(0, 2).join("/"));
        }
      }
      expect((await patch(clients.bob, "proj-gamma", "cm-gamma-01", { state: "ACTIVE" })).response.status).toBe(200);
      expect((await patch(clients.carol, "proj-beta", "cm-beta-02", { state: "ACTIVE" })).response.status).toBe(403);
    });

    it("a key created by a user acts only for that user", async () => {
      const created = await clients.carol.POST("/v1/api-keys", { body: { apikeyId: "carol-second" } });
      const carol = clientFor(created.data?.key ?? "");
      expect((await search(carol, "type:project")).data?.results.map((r) => r.resourceName)).toEqual([
        "projects/proj-gamma",
      ]);
      expect((await patch(carol, "proj-alpha", "cm-alpha-01", { state: "ACTIVE" })).response.status).toBe(403);
    });
  });

  describe("every documented failure, for real", () => {
    type Call = (client: ComputeClient, prefer?: string) => Promise<{ response: Response }>;
    let keyNumber = 0;
    const calls: [string, Call][] = [
      [
        "updateClusterMachine",
        (client, prefer) =>
          client.PATCH("/v1/projects/{projectId}/cluster-machines/{id}", {
            params: { path: { projectId: "proj-alpha", id: "cm-alpha-01" } },
            body: { state: "ACTIVE" },
            ...(prefer ? { headers: { Prefer: prefer } } : {}),
          }),
      ],
      [
        "createApiKey",
        (client, prefer) =>
          client.POST("/v1/api-keys", {
            body: { apikeyId: `failure-${keyNumber++}` },
            ...(prefer ? { headers: { Prefer: prefer } } : {}),
          }),
      ],
      [
        "searchResources",
        (client, prefer) =>
          client.GET("/v1/resources/search", {
            params: { query: { query: "alpha" } },
            ...(prefer ? { headers: { Prefer: prefer } } : {}),
          }),
      ],
    ];

    if (backend.faults) {
      it.each(calls)(
        "%s: 429, 500 and 503 as the stub is asked (Prefer), with Retry-After on 429 and 503, and nothing changed",
        async (_name, call) => {
          const before = await cluster(clients.alice, "cl-train-01");
          for (const status of [429, 500, 503]) {
            const { response } = await call(clients.alice, `code=${status}`);
            expect(response.status).toBe(status);
            if (status !== 500) expect(response.headers.get("retry-after")).toBe("1");
          }
          expect(await cluster(clients.alice, "cl-train-01")).toEqual(before);
        },
      );

      it.each(calls)(
        target === "gateway"
          ? "%s: 502 from the gateway when its stub drops the connection"
          : "%s: 502 as the stub is asked (Prefer)",
        async (_name, call) => {
          const client = droppingUrl ? clientFor(keys.alice, droppingUrl) : clients.alice;
          const { response } = await call(client, droppingUrl ? undefined : "code=502");
          expect(response.status).toBe(502);
        },
      );

      it.each(calls)(
        target === "gateway"
          ? "%s: 504 from the gateway when its stub is slower than the gateway's timeout"
          : "%s: 504 as the stub is asked (Prefer)",
        async (_name, call) => {
          // Through the gateway the stub waits ten times the timeout, decisively past it however busy the machine,
          // then refuses (503), so nothing changes after the 504.
          const { response } = await call(
            clients.alice,
            target === "gateway" ? `latency=${gatewayTimeoutMs * 10}, code=503` : "code=504",
          );
          expect(response.status).toBe(504);
        },
      );
    }

    it("searchResources 403: a user who may not search (a deploy bot's key)", async () => {
      const { response, error } = await search(clients.erin, "alpha");
      expect(response.status).toBe(403);
      expect(error?.details).toContainEqual(expect.objectContaining({ reason: "PERMISSION_DENIED" }));
    });
  });

  describe("coverage", () => {
    it("every answer matched the spec", () => {
      expect(problems).toEqual([]);
    });

    if (compress) {
      it("answers came compressed (br, which the stub prefers), and many of them", () => {
        expect([...encodings.keys()].filter((e) => e !== "identity").length).toBeGreaterThan(0);
        expect(encodings.get("br") ?? 0).toBeGreaterThan(5);
      });
    }

    it("every documented (operation, status) pair was exercised, with no exception", () => {
      // A backend without faults cannot be made to answer these; the gateway's own 502 and 504 are covered against the stub.
      const expected = (status: string) => backend.faults || !faultStatuses.includes(status);
      const missing = operations.flatMap((op) =>
        op.statuses
          .filter(expected)
          .map((status) => `${op.operationId} ${status}`)
          .filter((pair) => !seen.has(pair)),
      );
      expect(missing).toEqual([]);
    });
  });
}
