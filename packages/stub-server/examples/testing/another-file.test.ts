// another-file.test.ts — another file against the same stub at the same time: its session sees only its own changes
import { connectStub } from "@compute-api/stub-server/testing";
import { afterAll, expect, inject, it } from "vitest";

const { url, apiKey } = inject("stub");
const stub = connectStub(url, { apiKey }).session();
afterAll(() => stub.close());

it("reboots the machine the other file switches on, and sees its own change only", async () => {
  const headers = { ...stub.headers, authorization: `Bearer ${stub.apiKey}`, "content-type": "application/json" };
  for (let i = 0; i < 10; i++) {
    const machine = `${stub.url}/v1/projects/proj-alpha/cluster-machines/cm-alpha-01`;
    const body = JSON.stringify({ powerState: "REBOOTING" });
    expect((await fetch(machine, { method: "PATCH", headers, body })).status).toBe(200);
    const search = await fetch(`${stub.url}/v1/resources/search?query=train`, { headers });
    expect(search.status).toBe(200); // the other file's 503s are its own
    const snapshot = await stub.snapshot();
    const seen = snapshot.clusters?.flatMap((c) => c.machines ?? []).find((m) => m.id === "cm-alpha-01");
    expect(seen?.powerState).toBe("REBOOTING");
  }
  expect(await stub.requests({ status: "5xx" })).toEqual([]);
});
