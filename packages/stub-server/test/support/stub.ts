/** A real stub on an ephemeral 127.0.0.1 port, with a key per built-in user, for the tests of this package. */
import { createSchemaValidator, loadSpec } from "@compute-api/contract";
import { builtinFixtures } from "@compute-api/fixtures";
import { apiKeyPrefix } from "@compute-api/rules";
import { captureLogs, type ErrorBodyLike } from "@compute-api/test-support";
import { afterEach } from "vitest";
import { type RunningStub, type ServerOptions, startServer } from "../../src/index.js";

/** The built-in users. */
export const users = ["alice", "bob", "carol", "dave"] as const;
export type UserId = (typeof users)[number];

/** A running stub, its users' keys, the log lines it wrote, and a fetch bound to it. */
export interface TestStub extends RunningStub {
  keys: Record<UserId, string>;
  logs: string[];
  /** fetch against the stub; `as` sends that user's key (default alice), `as: null` sends none. */
  call(path: string, init?: RequestInit & { as?: UserId | null }): Promise<Response>;
}

/** Starts a stub with the built-in data (or options.fixtures) and a known key for each of its users named in `users`. */
export async function startTestStub(options: ServerOptions = {}): Promise<TestStub> {
  const keys = Object.fromEntries(
    users.map((u) => [u, `${apiKeyPrefix}test-${u}-${Math.random().toString(36).slice(2)}`]),
  ) as Record<UserId, string>;
  const { raw: logs, logger } = captureLogs();
  const stub = await startServer({
    port: 0,
    logger,
    ...options,
    apiKeys: Object.fromEntries(
      Object.entries(keys).filter(([u]) => (options.fixtures ?? builtinFixtures()).users.some((f) => f.id === u)),
    ),
  });
  return {
    ...stub,
    keys,
    logs,
    call(path, { as = "alice", headers, ...init } = {}) {
      const h = new Headers(headers);
      if (as) h.set("authorization", `Bearer ${keys[as]}`);
      if (typeof init.body === "string" && !h.has("content-type")) h.set("content-type", "application/json");
      return fetch(`${stub.url}${path}`, { ...init, headers: h });
    },
  };
}

/** A startTestStub whose stubs are closed after each test of the file that calls this (at its top level). */
export function stubPerTest(): (options?: ServerOptions) => Promise<TestStub> {
  const started: TestStub[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((stub) => stub.close()));
  });
  return async (options) => {
    const stub = await startTestStub(options);
    started.push(stub);
    return stub;
  };
}

/** Sends a JSON body with the method. */
export const json = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });

/** The spec's schemas, compiled once for the package's tests. */
export const validator = createSchemaValidator(loadSpec());

/** The field violations of an error body. */
export const violations = (body: ErrorBodyLike) => body.details?.flatMap((d) => d.fieldViolations ?? []) ?? [];

/** The ErrorInfo reasons of an error body. */
export const reasons = (body: ErrorBodyLike) => body.details?.flatMap((d) => (d.reason ? [d.reason] : [])) ?? [];
