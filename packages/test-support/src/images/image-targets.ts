/**
 * The project's four OCI images and the container engine that builds them: the targets of deploy/images/Containerfile,
 * their tags, and podman or docker with the environment its commands run with. Used by `npm run images`
 * (scripts/images.ts) and by the container suites, so that both build the same images the same way.
 */
import { accessSync, constants, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root (this package is private to it). */
export const root = fileURLToPath(new URL("../../../../", import.meta.url));

/** The one Containerfile of the four images, a target each. */
export const containerfile = join(root, "deploy/images/Containerfile");
/** The project's podman settings (runc, lower default ulimits, host networking), given through CONTAINERS_CONF. */
export const containersConf = join(root, "deploy/images/containers.conf");

/**
 * One of the images: its Containerfile target, the package whose version and description it carries, and the
 * command it runs (whose variables, `COMPUTE_STUB_PORT`…, configure it).
 */
export interface ImageTarget {
  readonly target: "gateway" | "stub" | "postgres-example" | "mcp";
  readonly packageDir: string;
  readonly command: string;
}

/** The four images, in the order they are built. */
export const imageTargets: readonly ImageTarget[] = [
  { target: "gateway", packageDir: "packages/gateway", command: "compute-gateway" },
  { target: "stub", packageDir: "packages/stub-server", command: "compute-stub" },
  { target: "postgres-example", packageDir: "examples/postgres", command: "compute-postgres" },
  { target: "mcp", packageDir: "packages/mcp", command: "compute-mcp" },
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

/** The Containerfile's default NODE_IMAGE. */
export function defaultNodeImage(): string {
  const match = /^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync(containerfile, "utf8"));
  if (!match?.[1]) throw new Error(`${containerfile} has no ARG NODE_IMAGE=<image>`);
  return match[1];
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
