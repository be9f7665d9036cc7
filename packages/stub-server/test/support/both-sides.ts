/**
 * The same test on both sides of the stub: the real stub over HTTP, driven by the helper of
 * `@compute-api/stub-server/testing` (its admin API), and the real MSW handlers under `setupServer`, driven by their
 * functions — one after the other, as MSW keeps one interception per process.
 */
import { apiKeyPrefix } from "@compute-api/rules";
import { createStubHandlers } from "@compute-api/stub-server/msw";
import { setupServer } from "msw/node";
import type { FaultOptions } from "../../src/index.js";
import type { JournalEntry, RequestFilter, StubbedAnswer, StubbedAnswerInput } from "../../src/testing.js";
import { startStub } from "../../src/testing.js";

/** One side: where to send requests, the keys of alice and bob, and the stub's functions (async on both sides). */
export interface Side {
  name: "msw" | "http";
  url: string;
  keys: { alice: string; bob: string };
  answer(answer: StubbedAnswerInput): Promise<string>;
  answers(): Promise<StubbedAnswer[]>;
  removeAnswer(id: string): Promise<unknown>;
  clearAnswers(): Promise<void>;
  requests(filter?: RequestFilter): Promise<JournalEntry[]>;
  expectRequests(filter: RequestFilter, count: number): Promise<JournalEntry[]>;
  /** A fetch of a path on this side, with alice's key unless `as` names bob or none (null). */
  call(path: string, init?: RequestInit & { as?: "alice" | "bob" | null }): Promise<Response>;
}

const baseUrl = "https://compute.example";

function caller(url: string, keys: Side["keys"]): Side["call"] {
  return (path, { as = "alice", headers, ...init } = {}) => {
    const h = new Headers(headers);
    if (as) h.set("authorization", `Bearer ${keys[as]}`);
    if (typeof init.body === "string" && !h.has("content-type")) h.set("content-type", "application/json");
    return fetch(`${url}${path}`, { ...init, headers: h });
  };
}

/** Runs `test` against the MSW handlers, then against the stub over HTTP, each with the same faults. */
export async function onBothSides(test: (side: Side) => Promise<void>, faults: FaultOptions = {}): Promise<void> {
  const keys = {
    alice: `${apiKeyPrefix}both-alice-${Math.random().toString(36).slice(2)}`,
    bob: `${apiKeyPrefix}both-bob-${Math.random().toString(36).slice(2)}`,
  };
  const mocked = createStubHandlers({ baseUrl, apiKeys: keys, faults });
  const server = setupServer(...mocked.handlers);
  server.listen({ onUnhandledRequest: "error" });
  try {
    await test({
      name: "msw",
      url: baseUrl,
      keys,
      answer: async (answer) => mocked.answer(answer),
      answers: async () => mocked.answers(),
      removeAnswer: async (id) => mocked.removeAnswer(id),
      clearAnswers: async () => mocked.clearAnswers(),
      requests: async (filter) => mocked.requests(filter),
      expectRequests: async (filter, count) => mocked.expectRequests(filter, count),
      call: caller(baseUrl, keys),
    });
  } finally {
    server.close();
  }
  const stub = await startStub({ apiKey: keys.alice, apiKeys: { bob: keys.bob }, faults });
  try {
    await test({ ...stub, name: "http", keys, call: caller(stub.url, keys) });
  } finally {
    await stub.close();
  }
}
