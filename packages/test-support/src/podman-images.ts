/**
 * The images of the container suites: the tests' own Node.js 24 base image, built here because no image registry is
 * reachable (a Debian bookworm root filesystem from debootstrap, imported with `podman import`, plus Node.js 24
 * (package.json's config.node24, node-binary.ts) and the host's npm; podman's image store keeps it between runs), and the project's images built as
 * `npm run images` builds them, on that base; one process of the machine builds at a time.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { withFileLock } from "./file-lock.js";
import { type BuiltImage, buildImages as buildProjectImages, podmanEnv } from "./images/index.js";
import { nodeBinary } from "./node-binary.js";
import { commandBound, imageExists, podman } from "./podman-run.js";
import { debootstrapProgram, podmanProgram, requireProgram, type SystemProgram } from "./system.js";

/** The tests' Node.js 24 base image: Debian bookworm (minbase) with node at /usr/local/bin/node and npm. */
export const baseImage = "localhost/compute-api/node:24-test";
/** The Debian root filesystem under it, kept apart so that a new Node binary does not run debootstrap again. */
const debianImage = "localhost/compute-api/debian:bookworm-minbase";
const debianMirror = "http://deb.debian.org/debian";
/** The label of baseImage that names the Node version in it (`v24.21.0`): another config.node24 rebuilds it. */
const nodeVersionLabel = "compute-api.node-version";

/** The npm that runs on the host, which the base image gets a copy of (the images' build stage runs npm ci). */
const npmProgram: SystemProgram = {
  name: "npm",
  env: "NPM_PATH",
  commands: ["npm"],
  dirs: ["/usr/bin", "/usr/local/bin"],
  apt: "npm",
  suites: podmanProgram.suites,
};

/** How long a building step may take: debootstrap, and an image build (cold: the npm install). */
const debootstrapBound = 10 * 60_000;
const buildBound = 15 * 60_000;

/**
 * The tests' base image, built when podman's store lacks it or holds it with another Node version (saying so in one
 * line on stderr); resolves with its name. One process at a time builds it: the others wait for it.
 */
export async function ensureBaseImage(): Promise<string> {
  const node = realpathSync(await nodeBinary(24));
  const version = (await promisify(execFile)(node, ["--version"])).stdout.trim();
  return withBuildLock(async () => {
    const inspected = await podman(
      ["image", "inspect", "--format", `{{index .Labels "${nodeVersionLabel}"}}`, baseImage],
      {
        allowFailure: true,
      },
    );
    if (inspected.code === 0 && inspected.stdout.trim() === version) return baseImage;
    process.stderr.write(
      `building the tests' base image ${baseImage} (Debian bookworm by debootstrap, Node ${version}; once, podman keeps it)\n`,
    );
    if (!(await imageExists(debianImage))) await importDebian();
    const context = mkdtempSync(join(tmpdir(), "compute-api-node-image-"));
    try {
      cpSync(node, join(context, "node"));
      cpSync(npmDir(), join(context, "npm"), { recursive: true });
      writeFileSync(
        join(context, "Containerfile"),
        [
          `FROM ${debianImage}`,
          "COPY node /usr/local/bin/node",
          "COPY npm /usr/local/lib/node_modules/npm",
          "RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm" +
            " && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx && node --version && npm --version",
          `LABEL ${nodeVersionLabel}="${version}"`,
          'CMD ["node"]',
          "",
        ].join("\n"),
      );
      await podman(["build", "--network", "host", "-t", baseImage, context], { timeoutMs: buildBound });
    } finally {
      rmSync(context, { recursive: true, force: true });
    }
    return baseImage;
  });
}

/**
 * The project's four images, built as `npm run images` builds them (./images) on the tests' base image,
 * each only when what it is built from changed since its last build (saying so in one line on stderr).
 */
export async function buildImages(): Promise<BuiltImage[]> {
  const nodeImage = await ensureBaseImage();
  const path = requireProgram(podmanProgram);
  return withBuildLock(async () => {
    let output = "";
    try {
      return await buildProjectImages({
        nodeImage,
        engine: { name: "podman", path, env: podmanEnv() },
        output: (chunk) => {
          output = (output + chunk).slice(-20_000);
        },
        signal: AbortSignal.timeout(buildBound),
        onBuild: (tag) =>
          process.stderr.write(`building ${tag} (what it is built from changed since its last build)\n`),
      });
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- podman build's output (end):\n${output.slice(-6000)}`);
    }
  });
}

/** Debian bookworm's minimal root filesystem, by debootstrap, without apt's caches and lists, docs or locales. */
async function importDebian(): Promise<void> {
  const debootstrap = requireProgram(debootstrapProgram);
  const dir = mkdtempSync(join(tmpdir(), "compute-api-debootstrap-"));
  const rootfs = join(dir, "rootfs");
  try {
    await promisify(execFile)(debootstrap, ["--variant=minbase", "bookworm", rootfs, debianMirror], {
      timeout: debootstrapBound,
      maxBuffer: 64 * 1024 * 1024,
    });
    for (const path of [
      "var/cache/apt",
      "var/lib/apt/lists",
      "usr/share/doc",
      "usr/share/man",
      "usr/share/info",
      "usr/share/locale",
    ]) {
      rmSync(join(rootfs, path), { recursive: true, force: true });
    }
    await promisify(execFile)(
      "sh",
      [
        "-c",
        `tar -C "$1" -c . | "$2" import --change 'CMD ["/bin/bash"]' - "$3"`,
        "sh",
        rootfs,
        requireProgram(podmanProgram),
        debianImage,
      ],
      {
        env: podmanEnv(),
        timeout: commandBound,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The folder of the npm that runs on the host (…/node_modules/npm), copied into the base image. */
function npmDir(): string {
  const npm = requireProgram(npmProgram);
  // …/npm/bin/npm-cli.js, which the `npm` on PATH links to.
  return dirname(dirname(realpathSync(npm)));
}

/**
 * Runs `build` while holding the machine-wide lock of the tests' image builds (a file in the temporary directory),
 * so that suites running at once build each image once.
 */
function withBuildLock<T>(build: () => Promise<T>): Promise<T> {
  return withFileLock(join(tmpdir(), "compute-api-image-build.lock"), buildBound + debootstrapBound, build);
}
