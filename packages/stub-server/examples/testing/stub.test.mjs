// stub.test.mjs — ES modules (`NODE_OPTIONS=--experimental-vm-modules npx jest`): import takes the ESM build, whose
// startStub runs the stub in the test's own process
import { startStub } from "@compute-api/stub-server/testing";

let stub;
beforeAll(async () => {
  stub = await startStub();
}, 60_000); // the stub compiles the spec's validators as it starts: seconds, over Jest's default 5 s
beforeEach(() => stub.reset());
afterAll(() => stub.close());

test("shows the client what a 503 looks like", async () => {
  await stub.faults({ faults: "503=100%" });
  const response = await fetch(`${stub.url}/v1/resources/search?query=train`, {
    headers: { authorization: `Bearer ${stub.apiKey}` },
  });
  expect(response.status).toBe(503);
  await stub.faults({ faults: null });
});

test("starts each test from the same data", async () => {
  const snapshot = await stub.snapshot();
  const machine = snapshot.clusters.flatMap((c) => c.machines ?? []).find((m) => m.id === "cm-alpha-01");
  expect(machine.powerState).toBe("OFF");
});
