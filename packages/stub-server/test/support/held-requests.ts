/**
 * The held requests of the MSW tests: the contract suite's (test/contract/support/contract-suite.ts) client calls,
 * each operation's answers the built-in data can cause — 200, 400, 401, 403, 404, 409, 413, 415 — and its flows, in
 * order, as the typed client sends them. Run against the stub over HTTP and against the MSW handlers (in Node and
 * in Chromium), they must give the same answers. Imports nothing from Node: the browser test bundles it.
 */
import { type ComputeClient, createComputeClient } from "@compute-api/client";

/** The built-in users, each with a known key. */
export const heldKeys = {
  alice: "cak_held-alice",
  bob: "cak_held-bob",
  carol: "cak_held-carol",
  dave: "cak_held-dave",
  erin: "cak_held-erin",
} as const;
type UserId = keyof typeof heldKeys;

/** What a held request is given: a client for a built-in user or for any key, and the keys created so far by name. */
interface Api {
  as(user: UserId): ComputeClient;
  withKey(key: string): ComputeClient;
  created: Map<string, string>;
}

/** An answer as compared: the status, the Cache-Control header, the JSON body (a created key and its time elided). */
export interface HeldAnswer {
  name: string;
  status: number;
  cacheControl: string | null;
  body: unknown;
}

type Call = (api: Api) => Promise<{ response: Response; data?: unknown; error?: unknown }>;

const machine = "/v1/projects/{projectId}/cluster-machines/{id}" as const;
const patch = (client: ComputeClient, projectId: string, id: string, body: Record<string, unknown>) =>
  client.PATCH(machine, { params: { path: { projectId, id } }, body });
const search = (client: ComputeClient, query: string) =>
  client.GET("/v1/resources/search", { params: { query: { query } } });
/** Creates a key and keeps it under its id, for the requests after it. */
const createKey =
  (user: UserId, apikeyId: string): Call =>
  async (api) => {
    const answer = await api.as(user).POST("/v1/api-keys", { body: { apikeyId } });
    if (answer.data) api.created.set(apikeyId, answer.data.key);
    return answer;
  };

/** The held requests, by name, in the order they are sent (later ones see what earlier ones changed). */
export const heldRequests: [string, Call][] = [
  [
    "PATCH 200, stored normalized",
    (api) =>
      patch(api.as("alice"), "proj-alpha", "cm-alpha-01", { powerState: "POWERING_ON", priceHr: { value: "+.5E0" } }),
  ],
  [
    "PATCH 400, a volume of another project",
    (api) =>
      patch(api.as("alice"), "proj-alpha", "cm-alpha-01", { volumeIds: ["vol-alpha-data", "vol-gamma-results"] }),
  ],
  ["PATCH 400, an unknown field", (api) => patch(api.as("alice"), "proj-alpha", "cm-alpha-01", { colour: "red" })],
  ["PATCH 400, an empty body object", (api) => patch(api.as("alice"), "proj-alpha", "cm-alpha-01", {})],
  [
    "PATCH 401, an unknown key",
    (api) => patch(api.withKey("cak_nobody"), "proj-alpha", "cm-alpha-01", { state: "ACTIVE" }),
  ],
  [
    "PATCH 403, another user's project",
    (api) => patch(api.as("alice"), "proj-gamma", "cm-gamma-01", { state: "ACTIVE" }),
  ],
  [
    "PATCH 403, a project that does not exist",
    (api) => patch(api.as("alice"), "proj-none", "cm-gamma-01", { state: "ACTIVE" }),
  ],
  [
    "PATCH 404, a machine not in the project",
    (api) => patch(api.as("alice"), "proj-alpha", "cm-beta-01", { state: "ACTIVE" }),
  ],
  [
    "PATCH 413, a body over 1 MiB",
    (api) =>
      patch(api.as("alice"), "proj-alpha", "cm-alpha-01", {
        volumeIds: Array.from({ length: 100_000 }, (_, i) => `vol-${i}-padding`),
      }),
  ],
  [
    "PATCH 415, a form body",
    (api) =>
      api.as("alice").PATCH(machine, {
        params: { path: { projectId: "proj-alpha", id: "cm-alpha-01" } },
        body: { state: "ACTIVE" },
        bodySerializer: () => "state=ACTIVE",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      }),
  ],
  [
    "PATCH 400, malformed JSON",
    (api) =>
      api.as("alice").PATCH(machine, {
        params: { path: { projectId: "proj-alpha", id: "cm-alpha-01" } },
        body: { state: "ACTIVE" },
        bodySerializer: () => '{"state":',
      }),
  ],
  ["POST 200, a new key", createKey("carol", "contract-key")],
  ["POST 409, the same id again", createKey("carol", "contract-key")],
  ["POST 400, an id in upper case", createKey("alice", "UPPER")],
  [
    "POST 401, an unknown key",
    (api) => api.withKey("cak_nobody").POST("/v1/api-keys", { body: { apikeyId: "nobody-key" } }),
  ],
  ["POST 403, a user who may not create keys", createKey("dave", "dave-key")],
  ["POST 413, an id of 1 MiB", createKey("alice", "x".repeat(1024 * 1024))],
  [
    "POST 415, a text body",
    (api) =>
      api.as("alice").POST("/v1/api-keys", {
        body: { apikeyId: "text-key" },
        bodySerializer: () => "text-key",
        headers: { "Content-Type": "text/plain" },
      }),
  ],
  ["search 200, typed results best first", (api) => search(api.as("alice"), "train type:cluster")],
  ["search 200, no match", (api) => search(api.as("alice"), "zzzz-nothing")],
  ["search 400, an unknown type", (api) => search(api.as("alice"), "type:planet")],
  ["search 400, an empty query", (api) => search(api.as("alice"), "")],
  ["search 401, an unknown key", (api) => search(api.withKey("cak_nobody"), "train")],
  ["search 403, a user who may not search", (api) => search(api.as("erin"), "alpha")],
  ["flow: bob creates a key", createKey("bob", "flow-key")],
  [
    "flow: the cluster before, with the new key",
    (api) => search(api.withKey(api.created.get("flow-key") ?? ""), "type:cluster cl-batch-01"),
  ],
  [
    "flow: the new key patches",
    (api) =>
      patch(api.withKey(api.created.get("flow-key") ?? ""), "proj-beta", "cm-beta-01", {
        powerState: "ON",
        priceHr: { value: "1.15" },
        volumeIds: [],
      }),
  ],
  ["flow: the cluster after, for alice", (api) => search(api.as("alice"), "type:cluster cl-batch-01")],
  ...(["alice", "bob", "carol", "dave"] as const).flatMap((user) =>
    ["type:project", "type:billingAccount", "type:cluster", "type:volume", "a"].map((query): [string, Call] => [
      `access: ${user} searches ${query}`,
      (api) => search(api.as(user), query),
    ]),
  ),
  ["access: bob patches proj-gamma", (api) => patch(api.as("bob"), "proj-gamma", "cm-gamma-01", { state: "ACTIVE" })],
  [
    "access: carol may not patch proj-beta",
    (api) => patch(api.as("carol"), "proj-beta", "cm-beta-02", { state: "ACTIVE" }),
  ],
  ["a created key acts only for its user: create", createKey("carol", "carol-second")],
  [
    "a created key acts only for its user: search",
    (api) => search(api.withKey(api.created.get("carol-second") ?? ""), "type:project"),
  ],
  [
    "a created key acts only for its user: patch",
    (api) =>
      patch(api.withKey(api.created.get("carol-second") ?? ""), "proj-alpha", "cm-alpha-01", { state: "ACTIVE" }),
  ],
];

/** A created key and its creation time, which differ from run to run, elided. */
function elide(body: unknown): unknown {
  if (body && typeof body === "object" && "key" in body && "createTime" in body)
    return { ...body, key: "<new key>", createTime: "<now>" };
  return body;
}

/**
 * Sends the held requests in order with the typed client to `baseUrl` (through `fetch`, default the global one:
 * MSW's interception, a service worker, or the network) and collects the answers.
 */
export async function sendHeldRequests(baseUrl: string, fetch?: typeof globalThis.fetch): Promise<HeldAnswer[]> {
  const clientFor = (apiKey: string) =>
    createComputeClient({
      baseUrl,
      apiKey,
      retry: false,
      ...(fetch ? { fetch: (request: Request) => fetch(request) } : {}),
    });
  const api: Api = {
    as: (user) => clientFor(heldKeys[user]),
    withKey: clientFor,
    created: new Map(),
  };
  const answers: HeldAnswer[] = [];
  for (const [name, call] of heldRequests) {
    const { response, data, error } = await call(api);
    answers.push({
      name,
      status: response.status,
      cacheControl: response.headers.get("cache-control"),
      body: elide(data ?? (error instanceof Error ? { ...error, message: error.message } : error)),
    });
  }
  return answers;
}
