/**
 * The images as `npm run images` builds them (on the tests' own Node 24 base), run for real with podman: the stub's
 * and the gateway's containers answer the README's requests, compute-mcp's serves Streamable HTTP to the SDK's
 * client, run as an unprivileged user on a read-only root
 * filesystem with node as PID 1, hold only their run-time tree and carry their labels; `podman stop` drains them (a
 * request in flight is answered) and they exit 0 well before podman's kill.
 */
import { readFileSync } from "node:fs";
import {
  type BuiltImage,
  buildImages,
  type Container,
  podman,
  skipWithoutPodman,
  startContainer,
} from "@compute-api/test-support/podman";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBound, httpClient, tagOf } from "./support.js";

/** The README's key stands for the one `npm start` prints; the container is given its own. */
const key = "cak_containers-readme-key";
const auth = { authorization: `Bearer ${key}` };
/** How long `podman stop` waits before its SIGKILL, in s (podman's and Docker's default). */
const stopSeconds = 10;

/** What a process in the container sees of itself: its user, PID 1's command, and whether it can write. */
const selfReport = `
const fs = require("node:fs");
const report = { uid: process.getuid(), gid: process.getgid(), pid1: fs.readFileSync("/proc/1/cmdline", "utf8").split("\\0").filter(Boolean) };
for (const path of ["/app/written", "/etc/written", "/tmp/written"]) {
  try { fs.writeFileSync(path, "x"); report[path] = "written"; } catch (error) { report[path] = error.code; }
}
console.log(JSON.stringify(report));`;

/** Which of `paths` exist in `image` (looked at as root, so that no permission hides one). */
async function existing(image: string, paths: readonly string[]): Promise<string[]> {
  const script = `const fs = require("node:fs"); console.log(JSON.stringify(${JSON.stringify(paths)}.filter((p) => fs.existsSync(p))));`;
  const { stdout } = await podman([
    "run",
    "--rm",
    "--network",
    "host",
    "--user",
    "0",
    "--entrypoint",
    "node",
    image,
    "-e",
    script,
  ]);
  return JSON.parse(stdout) as string[];
}

describe.skipIf(skipWithoutPodman())("the images, run with podman", () => {
  let images: BuiltImage[];
  let stub: Container | undefined;
  let gateway: Container | undefined;
  const client = httpClient();

  beforeAll(async () => {
    images = await buildImages();
    stub = await startContainer(tagOf(images, "stub"), { args: ["--api-key", key] });
    gateway = await startContainer(tagOf(images, "gateway"), { env: { COMPUTE_GATEWAY_UPSTREAM: stub.url } });
  }, buildBound);
  afterAll(async () => {
    await client.close();
    await gateway?.remove();
    await stub?.remove();
  }, 180_000);

  it("the stub's container answers the README's requests", async () => {
    const url = stub?.url;
    const search = await client.send(`${url}/v1/resources/search?query=train%20type:cluster`, { headers: auth });
    expect(search.status).toBe(200);
    expect(search.body).toMatchObject({
      results: [{ resourceName: "projects/proj-alpha/clusters/cl-train-01", resourceType: "cluster", score: 60 }],
    });

    const patch = await client.send(`${url}/v1/projects/proj-alpha/cluster-machines/cm-alpha-01`, {
      method: "PATCH",
      headers: auth,
      body: {
        powerState: "POWERING_ON",
        priceHr: { value: "+.5" },
        volumeIds: ["vol-alpha-data", "vol-alpha-scratch"],
      },
    });
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ id: "cm-alpha-01", priceHr: { value: "0.5" } });

    const created = await client.send(`${url}/v1/api-keys`, {
      method: "POST",
      headers: auth,
      body: { apikeyId: "ci-deploy-key" },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ id: "ci-deploy-key", key: expect.stringMatching(/^cak_/) });
    const again = await client.send(`${url}/v1/api-keys`, {
      method: "POST",
      headers: auth,
      body: { apikeyId: "ci-deploy-key" },
    });
    expect(again.status).toBe(409);
    expect(JSON.stringify(again.body)).toContain("ALREADY_EXISTS");

    const forbidden = await client.send(`${url}/v1/projects/proj-gamma/cluster-machines/cm-gamma-01`, {
      method: "PATCH",
      headers: auth,
      body: { state: "FAILED" },
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ code: 403, message: "permission denied on project 'proj-gamma'" });

    const injected = await client.send(`${url}/v1/resources/search?query=train`, {
      headers: { ...auth, prefer: "code=503" },
    });
    expect(injected.status).toBe(503);
    expect(injected.headers["retry-after"]).toBe("1");
  });

  it("the gateway's container answers the README's request in front of the stub's container, and refuses what the spec does", async () => {
    const search = await client.send(`${gateway?.url}/v1/resources/search?query=alpha`, { headers: auth });
    expect(search.status).toBe(200);
    expect((search.body as { results: unknown[] }).results.length).toBeGreaterThan(0);
    const broken = await client.send(`${gateway?.url}/v1/api-keys`, {
      method: "POST",
      headers: auth,
      body: { apikeyId: "X" },
    });
    expect(broken.status).toBe(400);
    expect(JSON.stringify(broken.body)).toContain("apikeyId");
    const ready = await client.send(`${gateway?.url}/readyz`);
    expect(ready.status).toBe(200);
  });

  it("compute-mcp's container serves Streamable HTTP to the SDK's client with its token, in front of the stub's container", async () => {
    const token = "containers-mcp-client-token-0123456789";
    const mcp = await startContainer(tagOf(images, "mcp"), {
      env: { COMPUTE_BASE_URL: stub?.url ?? "", COMPUTE_API_KEY: key, COMPUTE_MCP_AUTH_TOKEN: token },
    });
    const mcpClient = new Client({ name: "containers-test", version: "1.0.0" });
    try {
      const endpoint = new URL("/mcp", mcp.url);
      await mcpClient.connect(
        new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      const { tools } = await mcpClient.listTools();
      expect(tools.map((t) => t.name)).toEqual(["createApiKey", "searchResources", "updateClusterMachine"]);
      const result = await mcpClient.callTool({ name: "searchResources", arguments: { query: "train type:cluster" } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        results: [{ resourceName: "projects/proj-alpha/clusters/cl-train-01" }],
      });
      const refused = await client.send(endpoint.href, { method: "POST", body: {} });
      expect(refused.status).toBe(401);
      const { stdout } = await mcp.exec(["node", "-e", selfReport]);
      expect(JSON.parse(stdout)).toMatchObject({ uid: 1000, gid: 1000, "/app/written": "EROFS" });
      await mcpClient.close();
      // More than the drain's 10 s grace for the idle connections of this suite's clients.
      expect((await mcp.stop(45)).exitCode).toBe(0);
    } finally {
      await mcp.remove();
    }
  });

  it("compute-mcp's image refuses to start off loopback without the token its clients must send", async () => {
    const { code, stderr } = await podman(
      [
        "run",
        "--rm",
        "--network",
        "host",
        "-e",
        `COMPUTE_API_KEY=${key}`,
        "-e",
        "COMPUTE_BASE_URL=http://127.0.0.1:9",
        tagOf(images, "mcp"),
      ],
      { allowFailure: true },
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(/--host 0\.0\.0\.0 is not a loopback address: give --auth-token/);
  });

  it("each runs as uid 1000 with node as PID 1, on a read-only root filesystem where only /tmp can be written", async () => {
    for (const container of [stub, gateway]) {
      const { stdout, code } = await (container as Container).exec(["node", "-e", selfReport]);
      expect(code).toBe(0);
      const report = JSON.parse(stdout);
      expect(report).toMatchObject({ uid: 1000, gid: 1000, "/tmp/written": "written" });
      expect(report.pid1[0]).toBe("node");
      // EROFS: the root filesystem is read-only (without --read-only the user would still lack the permission).
      expect(report["/app/written"]).toBe("EROFS");
      expect(report["/etc/written"]).toBe("EROFS");
    }
  });

  it("each image holds its compiled command and production dependencies: no sources, compilers, dev dependencies or npm cache", async () => {
    const absent = [
      "/src",
      "/root/.npm",
      "/tmp/npm-cache",
      "/app/node_modules/typescript",
      "/app/node_modules/tsx",
      "/app/node_modules/esbuild",
      "/app/node_modules/vitest",
      "/app/node_modules/@biomejs",
      "/app/node_modules/playwright-core",
      "/app/node_modules/@redocly",
    ];
    // `sources`: what of the package's src/ must be absent (compute-mcp keeps its generated tools.json there).
    const layouts: Record<BuiltImage["target"], { dir: string; present: string[]; sources?: string }> = {
      gateway: {
        dir: "/app/packages/gateway",
        present: [
          "/app/packages/gateway/dist/bin.js",
          "/app/packages/contract/dist/index.js",
          "/app/packages/runtime/dist/index.js",
          "/app/packages/spec/dist/openapi.json",
        ],
      },
      stub: {
        dir: "/app/packages/stub-server",
        present: [
          "/app/packages/stub-server/dist/bin.js",
          "/app/packages/server/dist/index.js",
          "/app/packages/rules/dist/index.js",
          "/app/packages/runtime/dist/index.js",
          "/app/packages/spec/dist/openapi.json",
        ],
      },
      "postgres-example": {
        dir: "/app/examples/postgres",
        present: [
          "/app/examples/postgres/dist/bin.js",
          "/app/examples/postgres/migrations/001_accounts.sql",
          "/app/node_modules/pg",
        ],
      },
      mcp: {
        dir: "/app/packages/mcp",
        sources: "/app/packages/mcp/src/bin.ts",
        present: [
          "/app/packages/mcp/dist/bin.js",
          "/app/packages/mcp/src/generated/tools.json",
          "/app/packages/client/dist/index.js",
          "/app/packages/contract/dist/index.js",
          "/app/packages/spec/dist/openapi.json",
        ],
      },
    };
    for (const image of images) {
      const { dir, present, sources = `${dir}/src` } = layouts[image.target];
      const found = await existing(image.tag, [...present, ...absent, sources, `${dir}/test`, `${dir}/tsconfig.json`]);
      expect(found, image.target).toEqual(present);
    }
  });

  it("each image carries the OCI labels and exposes its port", async () => {
    const ports = { gateway: "8080/tcp", stub: "4010/tcp", "postgres-example": "4011/tcp", mcp: "4030/tcp" } as const;
    const manifests = {
      gateway: "packages/gateway",
      stub: "packages/stub-server",
      "postgres-example": "examples/postgres",
      mcp: "packages/mcp",
    };
    for (const image of images) {
      const { stdout } = await podman(["image", "inspect", "--format", "{{json .Config}}", image.tag]);
      const config = JSON.parse(stdout) as {
        Labels: Record<string, string>;
        ExposedPorts: Record<string, unknown>;
        User: string;
      };
      const { version } = JSON.parse(readFileSync(`${manifests[image.target]}/package.json`, "utf8")) as {
        version: string;
      };
      expect(config.Labels).toMatchObject({
        "org.opencontainers.image.version": version,
        "org.opencontainers.image.licenses": "MIT",
        "org.opencontainers.image.source": "https://github.com/compute-api/compute-api",
      });
      expect(config.Labels["org.opencontainers.image.title"]).toMatch(/^compute-/);
      expect(config.Labels["org.opencontainers.image.description"]?.length).toBeGreaterThan(20);
      expect(Object.keys(config.ExposedPorts)).toEqual([ports[image.target]]);
      expect(config.User).toBe("1000:1000");
      // podman's name of a local build, which `podman run` finds with no registry's short-name alias.
      expect(image.tag).toBe(`localhost/compute-api/${image.target}:${version}`);
    }
  });

  it("podman stop: SIGTERM starts the drain, the request in flight is answered, each exits 0 by itself, not killed", async () => {
    const drained = httpClient();
    const ownStub = await startContainer(tagOf(images, "stub"), { args: ["--api-key", key] });
    const ownGateway = await startContainer(tagOf(images, "gateway"), {
      env: { COMPUTE_GATEWAY_UPSTREAM: ownStub.url },
    });
    try {
      const timings: string[] = [];
      // The gateway first, with a request through it to the stub still running; then the stub, the same way.
      for (const [name, container] of [
        ["gateway", ownGateway],
        ["stub", ownStub],
      ] as const) {
        // A request of 3 s, sent 1.5 s before the stop: in flight at the SIGTERM however busy the machine, and over
        // long before podman's kill (10 s).
        const inFlight = drained.send(`${container.url}/v1/resources/search?query=alpha`, {
          headers: { ...auth, prefer: "latency=3000" },
        });
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const stopped = container.stop(stopSeconds);
        // It waited for the request: answered in full, told to close; then it exited by itself (0, not the kill's 137).
        const answer = await inFlight;
        expect(answer.status, name).toBe(200);
        expect(answer.headers.connection, name).toBe("close");
        const { exitCode, ms } = await stopped;
        expect(exitCode, `${name}'s exit status`).toBe(0);
        timings.push(`${name} ${Math.round(ms)} ms`);
      }
      process.stdout.write(
        `podman stop → exit 0, SIGTERM to exit with a request in flight for 1.5 s more: ${timings.join(", ")}\n`,
      );
    } finally {
      await drained.close();
      await ownGateway.remove();
      await ownStub.remove();
    }
  }, 180_000);
});
