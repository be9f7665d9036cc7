/**
 * `npm run images` as a user meets it before any image is built: where its base image cannot be pulled it fails at
 * once, before a build, with one message that names the image, the engine's reason and the ways to build on another
 * base (NODE_IMAGE, `--base-local`); a flag it does not know is refused with its usage; and the README runs the images
 * under the names the engines store them by (podman: localhost/compute-api/…, docker: compute-api/…).
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { baseImage, skipWithoutPodman } from "@compute-api/test-support/podman";
import { describe, expect, it } from "vitest";
import { imageTag, imageTargets, localTag } from "../../scripts/images.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

/** `npm run images -- <args>` with `env` added; its exit status and output. */
async function images(args: readonly string[], env: Record<string, string> = {}) {
  const tsx = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));
  return promisify(execFile)(tsx, ["scripts/images.ts", ...args], { cwd: root, env: { ...process.env, ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

describe.skipIf(skipWithoutPodman())("npm run images where its base image cannot be pulled", () => {
  it("fails before any build, once, naming the image, podman's reason, NODE_IMAGE and --base-local", async () => {
    // A registry on this machine's discard port, where nothing listens: the pull is refused at once.
    const base = "127.0.0.1:9/none:1";
    const { code, stdout, stderr } = await images(["gateway"], { NODE_IMAGE: base, CONTAINER_ENGINE: "podman" });
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toMatch(
      new RegExp(
        `^the base image ${base.replaceAll(".", "\\.")} could not be pulled \\(podman pull: .*connection refused\\)$`,
        "m",
      ),
    );
    // The reason is told once (podman's retries are not printed), and no build started.
    expect(stderr.match(/connection refused/g)).toHaveLength(1);
    expect(stderr).not.toMatch(/STEP \d|Trying to pull|level=warning/);
    expect(stderr).toContain("NODE_IMAGE=<your registry or mirror>/library/node:24-bookworm-slim npm run images");
    expect(stderr).toContain("NODE_IMAGE=<a Node 24 image in `podman images`> npm run images");
    expect(stderr).toContain(
      `npm run images -- --base-local   # podman: first builds the tests' own base, ${baseImage}`,
    );
    expect(stderr).not.toMatch(/^\s+at /m);
  });

  it("refuses a flag it does not know with its usage, exit 2, no stack trace", async () => {
    const { code, stderr } = await images(["--bogus"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/Unknown option '--bogus'/);
    expect(stderr).toContain("usage: npm run images -- [--force] [--base-local]");
    expect(stderr).not.toMatch(/^\s+at /m);
  });
});

describe("the README's commands for the images", () => {
  const section = readme.slice(readme.indexOf("## Run it in containers"), readme.indexOf("## Run it on Kubernetes"));

  it("podman runs each image under podman's own name for it, localhost/compute-api/…, which needs no registry", () => {
    const run = section.split("\n").filter((line) => /^podman run /.test(line) || /^ {2}\S+:\d/.test(line));
    const named = run.join("\n").match(/\S+\/compute-api\/[\w-]+:\S+|(?<![\w/])compute-api\/[\w-]+:\S+/g) ?? [];
    expect(named.sort()).toEqual(imageTargets.map((target) => localTag(target, "podman")).sort());
  });

  it("tells docker users docker's names, compute-api/…", () => {
    for (const target of imageTargets) {
      expect(localTag(target, "docker")).toBe(imageTag(target));
      expect(section).toContain(`\`${imageTag(target)}\``);
    }
  });
});
