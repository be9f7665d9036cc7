// @vitest-environment happy-dom
/**
 * The MSW handlers in happy-dom, as a front-end team's component tests run them: happy-dom's `fetch` and `Headers`
 * hand header names over as they were sent (`Authorization`, `Content-Type`), not lower-cased as Node's do; the
 * handlers read them in any case, so the real client is answered as in Node, its key and its JSON body read.
 */
import { createComputeClient } from "@compute-api/client";
import { newApiKey } from "@compute-api/rules";
import { createStubHandlers } from "@compute-api/stub-server/msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const baseUrl = "https://compute.example";
const apiKey = newApiKey();
const stub = createStubHandlers({ baseUrl, apiKeys: { alice: apiKey } });
const server = setupServer(...stub.handlers);

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(() => server.close());

describe("the MSW handlers in happy-dom", () => {
  it("runs under happy-dom's fetch, whose headers keep the case they were sent in", () => {
    expect(navigator.userAgent).toContain("HappyDOM");
    const headers = new Headers({ Authorization: "Bearer x" });
    const names: string[] = [];
    headers.forEach((_value, name) => {
      names.push(name);
    });
    expect(names).toEqual(["Authorization"]);
  });

  it("reads the key, the body's type and Prefer in any case: the client is answered as in Node", async () => {
    stub.reset();
    stub.clearRequests();
    const client = createComputeClient({ baseUrl, apiKey, retry: false });
    const searched = await client.GET("/v1/resources/search", { params: { query: { query: "alpha" } } });
    expect(searched.response.status).toBe(200);
    const patched = await client.PATCH("/v1/projects/{projectId}/cluster-machines/{id}", {
      params: { path: { projectId: "proj-alpha", id: "cm-alpha-01" } },
      body: { powerState: "ON" },
    });
    expect([patched.response.status, patched.data?.powerState]).toEqual([200, "ON"]);
    const preferred = await fetch(`${baseUrl}/v1/resources/search?query=alpha`, {
      headers: { Authorization: `Bearer ${apiKey}`, Prefer: "code=503" },
    });
    expect([preferred.status, preferred.headers.get("preference-applied")]).toEqual([503, "code=503"]);
    const journal = await stub.requests();
    expect(journal.map((entry) => [entry.method, entry.status, entry.userId])).toEqual([
      ["GET", 200, "alice"],
      ["PATCH", 200, "alice"],
      ["GET", 503, "alice"],
    ]);
    // The journal keeps header names lower-case, as the stub over HTTP does, and never the key.
    expect(journal[2]?.headers).toMatchObject({ authorization: "Bearer [redacted]", prefer: "code=503" });
  });
});
