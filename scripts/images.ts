/**
 * `npm run images`: builds the project's three OCI images from deploy/images/Containerfile, with podman if it is on
 * PATH, else docker (CONTAINER_ENGINE names either, or a path): compute-api/gateway, compute-api/stub and
 * compute-api/postgres-example, each tagged with its package's version (podman's names begin with localhost/, as
 * podman stores a local build). NODE_IMAGE, from the environment, is the base image (default: the Containerfile's,
 * Node.js 24 LTS on Debian 12 slim); when the engine has not got it and cannot pull it, the command says how to build
 * on another (NODE_IMAGE, or `--base-local`: the tests' own base, built from Debian here). When NODE_EXTRA_CA_CERTS
 * is set (a TLS-intercepting proxy between this machine and the npm registry), that file is given to the build as
 * the secret npm_ca, which the build stage trusts while it runs npm ci and which no image layer holds. Podman runs
 * with the project's deploy/images/containers.conf (CONTAINERS_CONF) unless CONTAINERS_CONF is already set.
 */
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { accessSync, constants, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The one Containerfile of the three images, a target each. */
export const containerfile = join(root, "deploy/images/Containerfile");
/** The project's podman settings (runc, lower default ulimits, host networking), given through CONTAINERS_CONF. */
export const containersConf = join(root, "deploy/images/containers.conf");

/**
 * One of the images: its Containerfile target, the package whose version and description it carries, and the
 * command it runs (whose variables, `COMPUTE_STUB_PORT`…, configure it).
 */
export interface ImageTarget {
  readonly target: "gateway" | "stub" | "postgres-example";
  readonly packageDir: string;
  readonly command: string;
}

/** The three images, in the order they are built. */
export const imageTargets: readonly ImageTarget[] = [
  { target: "gateway", packageDir: "packages/gateway", command: "compute-gateway" },
  { target: "stub", packageDir: "packages/stub-server", command: "compute-stub" },
  { target: "postgres-example", packageDir: "examples/postgres", command: "compute-postgres" },
];

/**
 * A built image: its target, its tag as the engine stores it (podman: `localhost/compute-api/gateway:1.0.0`, docker:
 * `compute-api/gateway:1.0.0`), and whether it was already up to date.
 */
export interface BuiltImage {
  readonly target: ImageTarget["target"];
  readonly tag: string;
  readonly upToDate: boolean;
}

/**
 * Where each image's id and the digest of what it was built from (contextDigest) are noted after its build: an image
 * whose id and digest still match is up to date and not built again. The engine's layer cache would reach the same
 * image, but only after checking every step's files, which takes minutes on a busy machine. (Not an image label:
 * podman 4.3 reuses a cached image with its old labels.)
 */
const builtFile = join(root, "node_modules/.cache/compute-api-images.json");

/**
 * Where the build context's files are (.dockerignore lets in a subset of these): a change to any file under them
 * makes the images out of date. Folders are walked without node_modules, dist, test and bench.
 */
const contextPaths = [
  ".dockerignore",
  ".npmrc",
  "LICENSE",
  "package.json",
  "package-lock.json",
  "tsconfig.base.json",
  "generated",
  "packages",
  "examples/postgres",
  "deploy/images",
];
const skippedFolders = new Set(["node_modules", "dist", "test", "bench", ".cache"]);

/** podman or docker, and the environment its commands run with. */
export interface ContainerEngine {
  readonly name: "podman" | "docker";
  readonly path: string;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * The name of `image`, `compute-api/<target>:<its package's version>`: docker's tag, and the name
 * deploy/kubernetes gives it (a cluster pulls it from the registry its kustomization names).
 */
export function imageTag(image: ImageTarget): string {
  const manifest = JSON.parse(readFileSync(join(root, image.packageDir, "package.json"), "utf8")) as {
    version: string;
  };
  return `compute-api/${image.target}:${manifest.version}`;
}

/**
 * The tag `engine` builds `image` under: podman's is `localhost/compute-api/<target>:<version>`, the name podman
 * stores a local build under and the one `podman run` finds without a registry's short-name alias; docker's is
 * imageTag's.
 */
export function localTag(image: ImageTarget, engine: ContainerEngine["name"]): string {
  return engine === "podman" ? `localhost/${imageTag(image)}` : imageTag(image);
}

/**
 * The container engine: CONTAINER_ENGINE (podman, docker, or a path to either), else podman on PATH, else docker;
 * undefined when there is none.
 */
export function findContainerEngine(env: NodeJS.ProcessEnv = process.env): ContainerEngine | undefined {
  const given = env.CONTAINER_ENGINE;
  const candidates = given ? [given] : ["podman", "docker"];
  for (const candidate of candidates) {
    const path = candidate.includes("/") ? candidate : onPath(candidate, env);
    if (path === undefined) continue;
    const name = path.endsWith("docker") ? "docker" : "podman";
    return { name, path, env: name === "podman" ? podmanEnv(env) : { ...env } };
  }
  return undefined;
}

/** The environment of podman's commands: the project's containers.conf, unless the caller chose one. */
export function podmanEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return env.CONTAINERS_CONF ? { ...env } : { ...env, CONTAINERS_CONF: containersConf };
}

/** What buildImages is given: the base image, where the engine's output goes, which images. */
export interface BuildImagesOptions {
  /** The base image of every stage (NODE_IMAGE); default: the environment's NODE_IMAGE, else the Containerfile's. */
  nodeImage?: string;
  /** The engine; default: findContainerEngine(). */
  engine?: ContainerEngine;
  /** Receives the engine's output (default: this process's stderr). */
  output?: (chunk: string) => void;
  /** The images to build; default: all three. */
  targets?: readonly ImageTarget[];
  /** Aborts the build (the engine's process is killed). */
  signal?: AbortSignal;
  /** Build even the images that are up to date (the engine's layer cache still applies). */
  force?: boolean;
  /** Told each image's tag before it is built (not for those up to date). */
  onBuild?: (tag: string) => void;
}

/**
 * The digest of what the images are built from: the base image's id and every file under contextPaths (names and
 * contents). Undefined when the engine does not have the base image yet (the build pulls it).
 */
export function contextDigest(engine: ContainerEngine, nodeImage: string | undefined): string | undefined {
  const base = nodeImage ?? defaultNodeImage();
  let baseId: string;
  try {
    baseId = execFileSync(engine.path, ["image", "inspect", "--format", "{{.Id}}", base], {
      env: engine.env,
      encoding: "utf8",
      stdio: "pipe",
    }).trim();
  } catch {
    return undefined;
  }
  const hash = createHash("sha256").update(`${base} ${baseId}\n`);
  const add = (path: string): void => {
    const full = join(root, path);
    let isFolder: boolean;
    try {
      isFolder = statSync(full).isDirectory();
    } catch {
      return;
    }
    if (!isFolder) {
      hash.update(`${path}\n`).update(readFileSync(full));
      return;
    }
    for (const name of readdirSync(full).sort()) {
      if (!skippedFolders.has(name) && !name.endsWith(".tsbuildinfo")) add(`${path}/${name}`);
    }
  };
  for (const path of contextPaths) add(path);
  return hash.digest("hex");
}

/** The Containerfile's default NODE_IMAGE. */
function defaultNodeImage(): string {
  const match = /^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync(containerfile, "utf8"));
  if (!match?.[1]) throw new Error(`${containerfile} has no ARG NODE_IMAGE=<image>`);
  return match[1];
}

/** The engine's id of `tag`, if it has it. */
function imageId(engine: ContainerEngine, tag: string): string | undefined {
  try {
    const id = execFileSync(engine.path, ["image", "inspect", "--format", "{{.Id}}", tag], {
      env: engine.env,
      encoding: "utf8",
      stdio: "pipe",
    }).trim();
    return id || undefined;
  } catch {
    return undefined;
  }
}

/** The images built so far from this checkout: tag → its id and the digest it was built from. */
function readBuilt(): Record<string, { id: string; digest: string }> {
  try {
    return JSON.parse(readFileSync(builtFile, "utf8"));
  } catch {
    return {};
  }
}

/**
 * Builds the images that are not up to date, one after the other (the build stage once: the others reuse its cached
 * layers), noting for each the context digest it was built from.
 */
export async function buildImages(options: BuildImagesOptions = {}): Promise<BuiltImage[]> {
  const engine = options.engine ?? findContainerEngine();
  if (engine === undefined) {
    throw new Error("neither podman nor docker found: install one (Debian: apt-get install podman runc)");
  }
  const output = options.output ?? ((chunk: string) => process.stderr.write(chunk));
  const nodeImage = options.nodeImage ?? process.env.NODE_IMAGE;
  await pullBase(engine, nodeImage ?? defaultNodeImage(), output, options.signal);
  const digest = contextDigest(engine, nodeImage);
  const built: BuiltImage[] = [];
  for (const image of options.targets ?? imageTargets) {
    const tag = localTag(image, engine.name);
    const before = readBuilt()[tag];
    if (!options.force && digest !== undefined && before?.digest === digest && imageId(engine, tag) === before.id) {
      built.push({ target: image.target, tag, upToDate: true });
      continue;
    }
    options.onBuild?.(tag);
    const args = ["build", "-f", containerfile, "--target", image.target, "-t", tag];
    args.push("--build-arg", `VERSION=${tag.slice(tag.lastIndexOf(":") + 1)}`);
    if (nodeImage) args.push("--build-arg", `NODE_IMAGE=${nodeImage}`);
    const ca = process.env.NODE_EXTRA_CA_CERTS;
    if (ca) args.push("--secret", `id=npm_ca,src=${resolve(ca)}`);
    // The build stage reaches the registry from the host's network, as the containers run (containers.conf).
    if (engine.name === "podman") args.push("--network", "host");
    args.push(root);
    await run(engine, args, output, options.signal);
    const id = imageId(engine, tag);
    if (digest !== undefined && id !== undefined) {
      mkdirSync(dirname(builtFile), { recursive: true });
      writeFileSync(builtFile, `${JSON.stringify({ ...readBuilt(), [tag]: { id, digest } }, null, 2)}\n`);
    }
    built.push({ target: image.target, tag, upToDate: false });
  }
  return built;
}

/** The base image could not be pulled: the message says which, why, and how to build on another. */
class BaseImageError extends Error {
  override name = "BaseImageError";
}

/**
 * Pulls the base image unless the engine has it already, so that a registry out of reach fails once, before the
 * build, with BaseImageError: which image, the engine's reason, and the ways to build on a base this machine can
 * reach (NODE_IMAGE naming a mirror or a local image, or `--base-local`).
 */
async function pullBase(
  engine: ContainerEngine,
  base: string,
  output: (chunk: string) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (imageId(engine, base) !== undefined) return;
  output(`pulling the base image ${base}\n`);
  // The engine's progress and retries are kept back: a failure is told once, below, with its last line.
  let last: string;
  try {
    await run(engine, ["pull", base], () => {}, signal);
    return;
  } catch (error) {
    if (signal?.aborted) throw error;
    last = ((error as Error).message.trim().split("\n").at(-1) ?? "").replace(/^Error: /, "");
  }
  throw new BaseImageError(
    [
      `the base image ${base} could not be pulled (${engine.name} pull: ${last})`,
      "Build on a Node.js 24 image with npm and sh that this machine has or can pull, one of:",
      `  NODE_IMAGE=<your registry or mirror>/library/node:24-bookworm-slim npm run images`,
      `  NODE_IMAGE=<a Node 24 image in \`${engine.name} images\`> npm run images`,
      "  npm run images -- --base-local   # podman: first builds the tests' own base, localhost/compute-api/node:24-test",
      "                                   # (Debian bookworm by debootstrap, Node 24 and npm from this machine), as root",
    ].join("\n"),
  );
}

/** Runs the engine; rejects with its exit status and the end of its output when it fails. */
function run(
  engine: ContainerEngine,
  args: string[],
  output: (chunk: string) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(engine.path, args, {
      env: engine.env,
      stdio: ["ignore", "pipe", "pipe"],
      ...(signal ? { signal, killSignal: "SIGKILL" as const } : {}),
    });
    let tail = "";
    const take = (chunk: Buffer) => {
      const text = chunk.toString();
      tail = (tail + text).slice(-4000);
      output(text);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.once("error", reject);
    child.once("close", (code, signal) => {
      if (code === 0) resolvePromise();
      else reject(new Error(`${engine.name} ${args.slice(0, 5).join(" ")} … failed (${signal ?? code}):\n${tail}`));
    });
  });
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The images' uncompressed sizes, as the engine reports them, in MB. */
function imageSizeMb(engine: ContainerEngine, tag: string): string {
  const bytes = execFileSync(engine.path, ["image", "inspect", "--format", "{{.Size}}", tag], {
    env: engine.env,
    encoding: "utf8",
  });
  return (Number(bytes.trim()) / 1e6).toFixed(0);
}

/**
 * The command. Not awaited at the top level: `--base-local` loads test-support's podman module, which imports this
 * one, and a top-level await here would leave that import waiting for this module's evaluation.
 */
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

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) void main();
