import { Agent, createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPacing } from "../src/pacing.js";

let server: Server;
let baseUrl: string;
const agent = new Agent({ keepAlive: true });
const request = { method: "GET", path: "/v1/resources/search?query=a" };

beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  agent.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("createPacing", () => {
  it.each<[string, { given: { rate: number; count: number }; want: { atLeastMs: number } }]>([
    ["one request is sent at once", { given: { rate: 5, count: 1 }, want: { atLeastMs: 0 } }],
    ["five requests at 50 a second take four intervals", { given: { rate: 50, count: 5 }, want: { atLeastMs: 75 } }],
    ["three requests at 10 a second take two intervals", { given: { rate: 10, count: 3 }, want: { atLeastMs: 190 } }],
  ])("%s", async (_name, { given, want }) => {
    const pacing = createPacing({ baseUrl, rate: given.rate, timeoutMs: 5000, agent });
    const started = performance.now();
    for (let i = 0; i < given.count; i++) expect((await pacing.exchange("searchResources", request)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(want.atLeastMs);
    expect(pacing.requests).toBe(given.count);
  });

  it("counts and times each operation, in the order asked for", async () => {
    const pacing = createPacing({ baseUrl, rate: 1000, timeoutMs: 5000, agent });
    await pacing.exchange("searchResources", request);
    await pacing.exchange("searchResources", request);
    await pacing.exchange("createApiKey", request);
    const latency = pacing.latency(["createApiKey", "searchResources", "updateClusterMachine"]);
    expect(latency.map((l) => [l.operationId, l.requests])).toEqual([
      ["createApiKey", 1],
      ["searchResources", 2],
      ["updateClusterMachine", 0],
    ]);
    for (const l of latency.slice(0, 2)) expect(l.p99).toBeGreaterThanOrEqual(l.p50);
    expect(latency[2]).toMatchObject({ p50: 0, p99: 0 });
  });

  it("answers status 0, saying why, when nothing answers", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const pacing = createPacing({ baseUrl: `http://127.0.0.1:${port}`, rate: 1000, timeoutMs: 5000, agent });
    const answer = await pacing.exchange("searchResources", request);
    expect(answer).toMatchObject({ status: 0, text: expect.stringMatching(/^no answer: /) });
    expect(pacing.requests).toBe(1);
  });
});
