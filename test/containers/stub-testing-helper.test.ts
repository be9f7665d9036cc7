/**
 * The stub's test helper for a stub in a container: the stub image as `npm run images` builds it, started with an
 * admin token, driven by `connectStub` from @compute-api/stub-server/testing exactly as a stub in process is —
 * reset, snapshot and restore, the journal, the faults — and refusing the admin API without the token.
 */

import { connectStub } from "@compute-api/stub-server/testing";
import { buildImages, type Container, skipWithoutPodman, startContainer } from "@compute-api/test-support/podman";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The images' build, cold (the base image, npm ci, the compile) or cached, and the lock other suites hold on it. */
const buildBound = 30 * 60_000;

const apiKey = "cak_container-helper-key";
const adminToken = "container-admin-token";

describe.skipIf(skipWithoutPodman())("the stub's test helper against the stub's container", () => {
  let container: Container | undefined;

  beforeAll(async () => {
    const stubImage = (await buildImages()).find((image) => image.target === "stub");
    if (!stubImage) throw new Error("npm run images built no stub image");
    // COMPUTE_STUB_HOST=0.0.0.0 as the image sets it: beyond loopback, the admin API is there only with its token.
    container = await startContainer(stubImage.tag, {
      env: { COMPUTE_STUB_HOST: "0.0.0.0", COMPUTE_STUB_ADMIN_TOKEN: adminToken },
      args: ["--api-key", apiKey],
    });
  }, buildBound);
  afterAll(async () => {
    await container?.remove();
  }, 180_000);

  it("resets, snapshots, restores and reads the journal of the container's stub", async () => {
    const stub = connectStub(container?.url ?? "", { apiKey, adminToken });
    const first = await stub.snapshot();
    const patched = await fetch(`${stub.url}/v1/projects/proj-alpha/cluster-machines/cm-alpha-01`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ powerState: "ON" }),
    });
    expect(patched.status).toBe(200);
    const [sent] = await stub.requests({ operationId: "updateClusterMachine" });
    expect(sent?.body).toEqual({ powerState: "ON" });
    expect(JSON.stringify(await stub.requests())).not.toContain(apiKey);
    expect(await stub.snapshot()).not.toEqual(first);
    await stub.reset();
    expect(await stub.snapshot()).toEqual(first);
    await stub.faults({ faults: "503=100%" });
    const failed = await fetch(`${stub.url}/v1/resources/search?query=a`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(failed.status).toBe(503);
    await stub.faults({ faults: null });
    await stub.restore(first);
    expect(await stub.snapshot()).toEqual(first);
  });

  it("refuses the admin API without the token", async () => {
    const stub = connectStub(container?.url ?? "", { apiKey });
    await expect(stub.reset()).rejects.toThrow(/answered 401/);
  });
});
