/**
 * `npm run images`: builds the project's four OCI images from deploy/images/Containerfile, with podman if it is on
 * PATH, else docker (CONTAINER_ENGINE names either, or a path): compute-api/gateway, compute-api/stub and
 * compute-api/postgres-example, each tagged with its package's version (podman's names begin with localhost/, as
 * podman stores a local build). NODE_IMAGE, from the environment, is the base image (default: the Containerfile's,
 * Node.js 24 LTS on Debian 12 slim); when the engine has not got it and cannot pull it, the command says how to build
 * on another (NODE_IMAGE, or `--base-local`: the tests' own base, built from Debian here). Podman runs with the
 * project's deploy/images/containers.conf (CONTAINERS_CONF) unless CONTAINERS_CONF is already set. The building is
 * @compute-api/test-support/images, which the container suites use as well.
 */
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import { buildImages, type ContainerEngine, findContainerEngine, imageTargets } from "@compute-api/test-support/images";

/** The images' uncompressed sizes, as the engine reports them, in MB. */
function imageSizeMb(engine: ContainerEngine, tag: string): string {
  const bytes = execFileSync(engine.path, ["image", "inspect", "--format", "{{.Size}}", tag], {
    env: engine.env,
    encoding: "utf8",
  });
  return (Number(bytes.trim()) / 1e6).toFixed(0);
}

async function main(): Promise<void> {
  const usage = "usage: npm run images -- [--force] [--base-local] [gateway|stub|postgres-example …]";
  let parsed: { positionals: string[]; values: { force?: boolean; "base-local"?: boolean } };
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { force: { type: "boolean" }, "base-local": { type: "boolean" } },
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${usage}\n`);
    process.exit(2);
  }
  const { positionals, values } = parsed;
  const unknown = positionals.filter((name) => !imageTargets.some((image) => image.target === name));
  if (unknown.length > 0) {
    process.stderr.write(
      `unknown image ${unknown.join(", ")}: one of ${imageTargets.map((i) => i.target).join(", ")}\n`,
    );
    process.exit(2);
  }
  const engine = findContainerEngine();
  if (engine === undefined) {
    process.stderr.write("neither podman nor docker found: install one (Debian: apt-get install podman runc)\n");
    process.exit(1);
  }
  if (values["base-local"] && engine.name !== "podman") {
    process.stderr.write("--base-local builds the base with podman; with docker, name a Node 24 image in NODE_IMAGE\n");
    process.exit(2);
  }
  const started = Date.now();
  try {
    // The tests' own base, built once and kept in podman's store (packages/test-support/src/podman-images.ts).
    const nodeImage = values["base-local"]
      ? await (await import("@compute-api/test-support/podman")).ensureBaseImage()
      : undefined;
    const targets = positionals.length > 0 ? imageTargets.filter((i) => positionals.includes(i.target)) : undefined;
    const built = await buildImages({
      engine,
      force: values.force === true,
      ...(nodeImage ? { nodeImage } : {}),
      ...(targets ? { targets } : {}),
    });
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    process.stdout.write(`${engine.name}, ${seconds} s:\n`);
    for (const { tag, upToDate } of built) {
      process.stdout.write(
        `  ${tag}  ${imageSizeMb(engine, tag)} MB${upToDate ? "  (up to date: --force builds it again)" : ""}\n`,
      );
    }
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
}

await main();
