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
