/**
 * The operations the stub's store does not implement are answered from the spec's examples, over HTTP and by the
 * MSW handlers alike: the success status's first example, `Prefer: example=<name>` for another, 204 without a
 * body, 501 naming an operation without an example; the key is still required, and the start-up log names them.
 */
import { loadSpec, type OpenApiDocument } from "@compute-api/contract";
import { expectErrorBody } from "@compute-api/test-support";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStubHandlers } from "../src/msw/index.js";
import { startTestStub, type TestStub } from "./support/stub.js";

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });
const failures = { "400": ref("BadRequest"), "401": ref("Unauthorized"), "404": ref("NotFound") };
const pathParameter = (name: string) => ({ name, in: "path", required: true, schema: { type: "string" } });
const disk = (id: string, sizeGib: number) => ({ id, projectId: "proj-alpha", dataCenterId: "dc-1", sizeGib });

/** The spec with three operations the store does not have: a GET with two examples, a DELETE, a GET without one. */
function specWithNewOperations(): OpenApiDocument {
  const spec = structuredClone(loadSpec());
  const json = (schema: unknown, examples?: Record<string, unknown>) => ({
    content: { "application/json": { schema, ...(examples && { examples }) } },
  });
  spec.paths["/v1/projects/{projectId}/disks/{diskId}"] = {
    parameters: [pathParameter("projectId"), pathParameter("diskId")],
    get: {
      operationId: "getDisk",
      responses: {
        "200": {
          description: "The disk.",
          ...json(
            { $ref: "#/components/schemas/Disk" },
            { Small: { value: disk("disk-1", 10) }, Large: { summary: "A large one", value: disk("disk-2", 900) } },
          ),
        },
        ...failures,
      },
    },
    delete: { operationId: "deleteDisk", responses: { "204": { description: "Deleted." }, ...failures } },
  };
  spec.paths["/v1/projects/{projectId}/images"] = {
    parameters: [pathParameter("projectId")],
    get: {
      operationId: "listImages",
      responses: { "200": { description: "The images.", ...json({ type: "object" }) }, ...failures },
    },
  };
  return spec;
}

describe("an operation the store does not implement", () => {
  let stub: TestStub;
  beforeAll(async () => {
    stub = await startTestStub({ spec: specWithNewOperations() });
  });
  afterAll(() => stub?.close());

  it("is named in one start-up line", () => {
    const lines = stub.logs.filter((line) => line.includes("answered from the spec's examples"));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "{}")).toMatchObject({ operations: ["getDisk", "deleteDisk", "listImages"] });
  });

  it("answers its success status's first example, or the one Prefer names", async () => {
    const first = await stub.call("/v1/projects/proj-alpha/disks/any");
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual(disk("disk-1", 10));
    const named = await stub.call("/v1/projects/proj-alpha/disks/any", { headers: { prefer: "example=Large" } });
    expect(named.status).toBe(200);
    expect(named.headers.get("preference-applied")).toBe("example=Large");
    expect(await named.json()).toEqual(disk("disk-2", 900));
  });

  it("refuses an example name the operation does not have with 400 naming the ones it has", async () => {
    const answer = await stub.call("/v1/projects/proj-alpha/disks/any", { headers: { prefer: "example=Huge" } });
    const body = await expectErrorBody(answer, 400);
    expect(JSON.stringify(body)).toContain("example=Huge is not an example of getDisk (Small, Large)");
  });

  it("takes Prefer: code=<status> as every operation does: a documented failure, injected", async () => {
    const answer = await stub.call("/v1/projects/proj-alpha/disks/any", { headers: { prefer: "code=404" } });
    await expectErrorBody(answer, 404);
    await expectErrorBody(
      await stub.call("/v1/projects/proj-alpha/disks/any", { headers: { prefer: "code=503" } }),
      400,
    );
  });

  it("answers 204 without a body when its success is a 204", async () => {
    const answer = await stub.call("/v1/projects/proj-alpha/disks/any", { method: "DELETE" });
    expect(answer.status).toBe(204);
    expect(await answer.text()).toBe("");
  });

  it("answers 501 naming the operation when the spec has no example of its answer", async () => {
    const body = await expectErrorBody(await stub.call("/v1/projects/proj-alpha/images"), 501);
    expect(body.message).toContain("'listImages'");
  });

  it("still needs a key, and still validates the request", async () => {
    await expectErrorBody(await stub.call("/v1/projects/proj-alpha/disks/any", { as: null }), 401);
    await expectErrorBody(await stub.call("/v1/projects/proj-alpha/disks/any?extra=1"), 400);
  });

  it("leaves the store's own operations stateful", async () => {
    const search = await stub.call("/v1/resources/search?query=type:project");
    expect(search.status).toBe(200);
    expect(((await search.json()) as { results: unknown[] }).results.length).toBeGreaterThan(0);
  });
});

describe("the MSW handlers, for an operation the store does not implement", () => {
  const baseUrl = "https://compute.example";
  const key = "cak_examples-alice";
  const stub = createStubHandlers({ baseUrl, spec: specWithNewOperations(), apiKeys: { alice: key } });
  const server = setupServer(...stub.handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  afterAll(() => server.close());
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });

  it("answers as the stub does", async () => {
    expect(stub.answeredFromExamples).toEqual(["getDisk", "deleteDisk", "listImages"]);
    expect(await (await call("/v1/projects/proj-alpha/disks/any")).json()).toEqual(disk("disk-1", 10));
    const named = await call("/v1/projects/proj-alpha/disks/any", { headers: { prefer: "example=Large" } });
    expect(named.headers.get("preference-applied")).toBe("example=Large");
    expect(await named.json()).toEqual(disk("disk-2", 900));
    await expectErrorBody(
      await call("/v1/projects/proj-alpha/disks/any", { headers: { prefer: "example=Huge" } }),
      400,
    );
    const deleted = await call("/v1/projects/proj-alpha/disks/any", { method: "DELETE" });
    expect([deleted.status, await deleted.text()]).toEqual([204, ""]);
    await expectErrorBody(await call("/v1/projects/proj-alpha/images"), 501);
    await expectErrorBody(await fetch(`${baseUrl}/v1/projects/proj-alpha/disks/any`), 401);
  });
});
