/**
 * A compute server for the tests: a tiny in-memory implementation (one machine, keys by id, an empty search) on
 * an ephemeral 127.0.0.1 port, its handlers overridden per test, closed after each.
 */
import { everyOperation } from "@compute-api/test-support";
import { afterEach } from "vitest";
import {
  type ComputeServerOptions,
  createComputeServer,
  type Handlers,
  listen,
  notFound,
  type ResponseBody,
} from "../../src/index.js";

export interface Caller {
  userId: string;
}

export const keys: Record<string, Caller> = { "cak_alice-key": { userId: "alice" } };
const machine = (projectId: string, id: string): ResponseBody<"updateClusterMachine"> => ({
  id,
  projectId,
  powerState: "ON",
});

/**
 * Handlers of a tiny service: one machine, keys by id, an empty search (any other operation of the spec answers
 * 501); overridden per test.
 */
export const handlers = (overrides: Partial<Handlers<Caller>> = {}): Handlers<Caller> =>
  everyOperation<Handlers<Caller>>({
    updateClusterMachine: ({ path, body }) => {
      if (path.id !== "cm-1") throw notFound(`cluster machine '${path.id}' not found in project '${path.projectId}'`);
      return { ...machine(path.projectId, path.id), ...(body.powerState ? { powerState: body.powerState } : {}) };
    },
    createApiKey: ({ body, principal }) => ({
      id: body.apikeyId,
      createTime: "2026-11-23T00:00:00Z",
      key: `cak_${principal.userId}-${body.apikeyId}`,
    }),
    searchResources: () => ({ results: [] }),
    ...overrides,
  });

export const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

export async function serve(options: Partial<ComputeServerOptions<Caller>> = {}) {
  const server = await createComputeServer<Caller>({
    authenticate: (token) => keys[token],
    handlers: handlers(),
    ...options,
  });
  const listening = await listen(server.app, { port: 0 });
  closers.push(() => listening.close());
  const call = (path: string, init: RequestInit & { key?: string } = {}) =>
    fetch(`${listening.url}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${init.key ?? "cak_alice-key"}`,
        ...(init.body ? { "content-type": "application/json" } : {}),
        ...(init.headers as Record<string, string>),
      },
    });
  return { server, url: listening.url, call };
}
