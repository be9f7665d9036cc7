/** updateClusterMachine against a real stub with the built-in data: the PATCH rules of the spec. */
import { connect } from "node:net";
import { type ErrorBodyLike, expectErrorBody } from "@compute-api/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Cluster, ClusterMachine } from "../../src/types.js";
import { json, reasons, startTestStub, type TestStub, type UserId, violations } from "../support/stub.js";

let stub: TestStub;
beforeAll(async () => {
  stub = await startTestStub();
});
afterAll(() => stub.close());

const patch = (projectId: string, id: string, body: unknown, as: UserId = "alice") =>
  stub.call(`/v1/projects/${projectId}/cluster-machines/${id}`, { ...json("PATCH", body), as });

/** The cluster as search shows it now. */
async function cluster(id: string, as: UserId = "alice"): Promise<Cluster> {
  const res = await stub.call(`/v1/resources/search?query=${encodeURIComponent(`type:cluster ${id}`)}`, { as });
  const { results } = (await res.json()) as { results: { cluster: Cluster }[] };
  const found = results.find((r) => r.cluster.id === id);
  if (!found) throw new Error(`no cluster ${id}`);
  return found.cluster;
}

const machineOf = (c: Cluster, id: string): ClusterMachine | undefined => c.machines?.find((m) => m.id === id);

describe("updateClusterMachine", () => {
  it("sets the fields present, keeps the others, and answers with the whole machine", async () => {
    const before = machineOf(await cluster("cl-train-01"), "cm-alpha-02");
    const res = await patch("proj-alpha", "cm-alpha-02", { powerState: "REBOOTING" });
    const machine = (await res.json()) as ClusterMachine;
    expect(res.status).toBe(200);
    expect(machine).toEqual({ ...before, powerState: "REBOOTING" });
    expect(machineOf(await cluster("cl-train-01"), "cm-alpha-02")).toEqual(machine);
  });

  it("sets every field at once, as the spec's example does", async () => {
    const body = {
      powerState: "POWERING_ON",
      state: "ACTIVE",
      priceHr: { value: "2.50" },
      volumeIds: ["vol-alpha-data", "vol-alpha-scratch"],
    };
    const machine = (await (await patch("proj-alpha", "cm-alpha-01", body)).json()) as ClusterMachine;
    expect(machine).toMatchObject(body);
  });

  const prices: [string, { given: string; want: string }][] = [
    ["drops a leading +", { given: "+2.5", want: "2.5" }],
    ["adds a leading zero", { given: ".5", want: "0.5" }],
    ["drops a trailing point", { given: "5.", want: "5" }],
    ["lowercases the exponent", { given: "1E3", want: "1e3" }],
    ["drops a zero exponent", { given: "2.5e0", want: "2.5" }],
    ["drops a signed, padded zero exponent", { given: "+.5E-00", want: "0.5" }],
    ["keeps trailing zeros", { given: "2.50", want: "2.50" }],
    ["keeps a negative exponent", { given: "25e-1", want: "25e-1" }],
  ];
  it.each(prices)("stores priceHr normalized: %s", async (_name, { given, want }) => {
    const machine = (await (
      await patch("proj-alpha", "cm-alpha-03", { priceHr: { value: given } })
    ).json()) as ClusterMachine;
    expect(machine.priceHr).toEqual({ value: want });
    expect(machineOf(await cluster("cl-infer-01"), "cm-alpha-03")?.priceHr).toEqual({ value: want });
  });

  it("keeps the cluster's totals exact sums of its machines", async () => {
    await patch("proj-beta", "cm-beta-01", { priceHr: { value: "0.1" } });
    await patch("proj-beta", "cm-beta-02", { priceHr: { value: "0.2" } });
    const c = await cluster("cl-batch-01");
    // Floating point would say 0.30000000000000004.
    expect(c).toMatchObject({
      machineCount: 2,
      totalMachinePriceHr: { value: "0.3" },
      totalPriceHr: { value: "0.3" },
      totalCpuCores: 256,
      totalMemoryGib: 512,
      totalGpus: 0,
      totalDiskSizeGib: 1920,
    });
  });

  it("writes a total that plain digits cannot hold with an exponent", async () => {
    await patch("proj-alpha", "cm-alpha-03", { priceHr: { value: "1e999999999" } });
    expect((await cluster("cl-infer-01")).totalMachinePriceHr).toEqual({ value: "1e999999999" });
  });

  it("replaces the volume list", async () => {
    expect(await (await patch("proj-alpha", "cm-alpha-02", { volumeIds: ["vol-train-data"] })).json()).toMatchObject({
      volumeIds: ["vol-train-data"],
    });
    expect(await (await patch("proj-alpha", "cm-alpha-02", { volumeIds: [] })).json()).toMatchObject({ volumeIds: [] });
  });

  it("answers 403 for a project the caller cannot access, whether or not it exists", async () => {
    const exists = await expectErrorBody(await patch("proj-gamma", "cm-gamma-01", { state: "FAILED" }), 403);
    const missing = await expectErrorBody(await patch("proj-nowhere", "cm-gamma-01", { state: "FAILED" }), 403);
    expect(exists.message.replace("proj-gamma", "P")).toBe(missing.message.replace("proj-nowhere", "P"));
    expect(reasons(exists)).toEqual(["PERMISSION_DENIED"]);
    expect((await cluster("cl-sim-01", "bob")).machines?.[0]?.state).toBe("STATE_UNSPECIFIED");
  });

  it("answers 404 for a machine that is not in the project", async () => {
    await expectErrorBody(await patch("proj-alpha", "cm-404", { state: "FAILED" }), 404);
    // cm-beta-01 exists, in proj-beta, which alice may also access.
    const body = await expectErrorBody(await patch("proj-alpha", "cm-beta-01", { state: "FAILED" }), 404);
    expect(reasons(body)).toEqual(["NOT_FOUND"]);
  });

  const refused: [string, { body: unknown; fields: string[] }][] = [
    [
      "a volume of another project and an unknown one",
      {
        body: { volumeIds: ["vol-alpha-data", "vol-beta-archive", "vol-nope"] },
        fields: ["volumeIds[1]", "volumeIds[2]"],
      },
    ],
    [
      "a volume twice",
      { body: { volumeIds: ["vol-alpha-data", "vol-alpha-scratch", "vol-alpha-data"] }, fields: ["volumeIds[2]"] },
    ],
    ["a negative price", { body: { priceHr: { value: "-1" } }, fields: ["priceHr.value"] }],
    ["a price that is not a number", { body: { priceHr: { value: "1,5" } }, fields: ["priceHr.value"] }],
    [
      "a price over 64 characters once normalized",
      { body: { priceHr: { value: `.${"5".repeat(63)}` } }, fields: ["priceHr.value"] },
    ],
    [
      "a price that makes the total unwritable",
      { body: { priceHr: { value: "1e999999999" } }, fields: ["priceHr.value"] },
    ],
    ["an unspecified state", { body: { state: "STATE_UNSPECIFIED" }, fields: ["state"] }],
    ["an unspecified power state", { body: { powerState: "MACHINE_POWER_STATE_UNSPECIFIED" }, fields: ["powerState"] }],
    ["an empty body", { body: {}, fields: [""] }],
    ["an unknown field", { body: { state: "FAILED", name: "x" }, fields: ["name"] }],
    [
      "a good field beside a bad one",
      { body: { state: "FAILED", volumeIds: ["vol-beta-archive"] }, fields: ["volumeIds[0]"] },
    ],
  ];
  it("refuses a body of tens of thousands of volume ids in linear time", async () => {
    // Ajv compared every pair of ids when the items schema was a bare $ref: 25 s of CPU for this body. A pairwise
    // check stops at the first equal pair, so the same body with one id repeated costs it nothing: without one the
    // two take alike, with one distinct ids take thousands of times longer. Each the fastest of three, one after
    // the other in this process, so that another program's load slows both alike.
    const ids = (id: (i: number) => string) => ({ volumeIds: Array.from({ length: 60_000 }, (_, i) => id(i)) });
    const refusedIn = async (body: { volumeIds: string[] }) => {
      let fastest = Infinity;
      for (let run = 0; run < 3; run++) {
        const started = performance.now();
        const error = await expectErrorBody(await patch("proj-alpha", "cm-alpha-01", body), 400);
        fastest = Math.min(fastest, performance.now() - started);
        expect(violations(error).map((v) => v.reason)).toEqual(["maxItems"]);
      }
      return fastest;
    };
    const repeated = await refusedIn(ids(() => "vol-00000"));
    const distinct = await refusedIn(ids((i) => `vol-${String(i).padStart(5, "0")}`));
    expect(
      distinct / repeated,
      `distinct ids ${distinct.toFixed(0)} ms, one repeated ${repeated.toFixed(0)} ms`,
    ).toBeLessThan(10);
  });

  it.each(refused)("answers 400 for %s and changes nothing", async (_name, { body, fields }) => {
    const before = await cluster("cl-train-01");
    const error = await expectErrorBody(await patch("proj-alpha", "cm-alpha-01", body), 400);
    expect(violations(error).map((v) => v.field)).toEqual(fields);
    expect(await cluster("cl-train-01")).toEqual(before);
  });

  it("answers a JSON PATCH with no body at all (no Content-Length, as curl sends it) 400 naming the body, not 500", async () => {
    const before = await cluster("cl-train-01");
    const { port } = new URL(stub.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port: Number(port) });
      let text = "";
      socket.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
      // Written, not ended: as curl, the client keeps its side open until the answer (Connection: close) ends it.
      // A half-close would make Node abort the request whenever the FIN is read before the answer is written.
      socket.write(
        "PATCH /v1/projects/proj-alpha/cluster-machines/cm-alpha-01 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" +
          `Authorization: Bearer ${stub.keys.alice}\r\nContent-Type: application/json\r\n\r\n`,
      );
    });
    const [head = "", body = ""] = answer.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1.1 400 /);
    expect(violations(JSON.parse(body) as ErrorBodyLike)).toEqual([
      { field: "", description: "must have required property 'body'", reason: "required" },
    ]);
    expect(await cluster("cl-train-01")).toEqual(before);
  });
});
