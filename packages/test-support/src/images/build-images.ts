/**
 * Builds the project's images (image-targets.ts) with podman or docker, each only when what it is built from changed:
 * the base image (NODE_IMAGE), pulled first so that a registry out of reach fails once with the ways around it.
 * When NODE_EXTRA_CA_CERTS is set (a TLS-intercepting proxy between this machine and the npm registry), that file is
 * given to the build as the secret npm_ca, which the build stage trusts while it runs npm ci and which no image layer
 * holds.
 */
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { imageId, noteBuilt, upToDate } from "./built-images.js";
import {
  type BuiltImage,
  type ContainerEngine,
  containerfile,
  defaultNodeImage,
  findContainerEngine,
  type ImageTarget,
  imageTargets,
  localTag,
  root,
} from "./image-targets.js";

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

/** What buildImages is given: the base image, where the engine's output goes, which images. */
export interface BuildImagesOptions {
  /** The base image of every stage (NODE_IMAGE); default: the environment's NODE_IMAGE, else the Containerfile's. */
  nodeImage?: string;
  /** The engine; default: findContainerEngine(). */
  engine?: ContainerEngine;
  /** Receives the engine's output (default: this process's stderr). */
  output?: (chunk: string) => void;
  /** The images to build; default: all four. */
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
    if (!options.force && digest !== undefined && upToDate(engine, tag, digest)) {
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
    if (digest !== undefined && id !== undefined) noteBuilt(tag, digest, id);
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
