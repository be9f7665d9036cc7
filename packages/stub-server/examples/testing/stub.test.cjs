// stub.test.cjs — CommonJS (`npx jest`): require() takes the package's CommonJS build, whose startStub runs the stub
// in a child process and drives it over the admin API
const { startStub } = require("@compute-api/stub-server/testing");

let stub;
beforeAll(async () => {
  stub = await startStub();
}, 60_000); // the stub compiles the spec's validators as it starts: seconds, over Jest's default 5 s
beforeEach(() => stub.reset());
afterAll(() => stub.close());

test("switches a machine on, as the client was asked to", async () => {
  const response = await fetch(`${stub.url}/v1/projects/proj-alpha/cluster-machines/cm-alpha-01`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${stub.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ powerState: "ON" }),
  });
  expect(response.status).toBe(200);
  const [sent] = await stub.requests({ operationId: "updateClusterMachine" });
  expect(sent.body).toEqual({ powerState: "ON" });
});

test("starts each test from the same data", async () => {
  const snapshot = await stub.snapshot();
  const machine = snapshot.clusters.flatMap((c) => c.machines ?? []).find((m) => m.id === "cm-alpha-01");
  expect(machine.powerState).toBe("OFF");
});

test("in a session of its own: its own answer, a 503 first, and a count of what was sent", async () => {
  const session = stub.session(); // its own state, faults, journal and answers: its client sends session.headers
  const search = (query) =>
    fetch(`${session.url}/v1/resources/search?query=${query}`, {
      headers: { ...session.headers, authorization: `Bearer ${session.apiKey}` },
    });
  await session.answer({
    request: { operationId: "searchResources", query: { query: "none" } },
    answer: { status: 200, body: { results: [] } },
  });
  await session.faults({ scenarios: { searchResources: "503x1" }, retryAfter: 0 });
  expect((await search("none")).status).toBe(503);
  expect(await (await search("none")).json()).toEqual({ results: [] });
  await session.expectRequests({ operationId: "searchResources", query: { query: "none" } }, 2);
  expect(await stub.requests({ operationId: "searchResources" })).toEqual([]); // the stub's own journal
  await session.close();
});
