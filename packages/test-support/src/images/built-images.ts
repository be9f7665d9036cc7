/**
 * The note of the images built on this machine, which build-images.ts reads to build only what changed: for each tag,
 * the image built from each digest of what it was built from (build-images.ts' contextDigest). An image whose tag
 * still names the image noted for the digest is up to date and not built again, and one the engine still holds under
 * its id while the tag names another (another checkout of this machine built the tag since) is only tagged again. The
 * engine's layer cache would reach the same image, but only after checking every step's files, which takes minutes on
 * a busy machine. (Not an image label: podman 4.3 reuses a cached image with its old labels.) The note is the
 * machine's, as the engine's image store is (in the user's cache folder, `$XDG_CACHE_HOME` or `~/.cache`), so that a
 * fresh clone of sources built before builds nothing; it keeps the last few digests of each tag.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { ContainerEngine } from "./image-targets.js";

const builtFile = join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "compute-api", "images.json");
/** How many digests of each tag the note keeps (the last built). */
const digestsKept = 8;

/** The images built so far on this machine: tag → digest of what it was built from → the image's id. */
type Built = Record<string, Record<string, string>>;

function readBuilt(): Built {
  try {
    const built = JSON.parse(readFileSync(builtFile, "utf8")) as unknown;
    return typeof built === "object" && built !== null ? (built as Built) : {};
  } catch {
    return {};
  }
}

/** Notes `id` as the image built for `tag` from `digest`; a note that cannot be written only costs a later build. */
export function noteBuilt(tag: string, digest: string, id: string): void {
  const built = readBuilt();
  const others = Object.entries(built[tag] ?? {}).filter(([noted]) => noted !== digest);
  built[tag] = Object.fromEntries([...others.slice(-(digestsKept - 1)), [digest, id]]);
  try {
    mkdirSync(dirname(builtFile), { recursive: true });
    writeFileSync(builtFile, `${JSON.stringify(built, null, 2)}\n`);
  } catch {
    // not writable: the image is built again next time
  }
}

/** The engine's id of `tag`, if it has it. */
export function imageId(engine: ContainerEngine, tag: string): string | undefined {
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

/**
 * Whether `tag` names the image built from `digest`, after tagging that image `tag` again when the engine still holds
 * it but the tag names another.
 */
export function upToDate(engine: ContainerEngine, tag: string, digest: string): boolean {
  const id = readBuilt()[tag]?.[digest];
  if (id === undefined) return false;
  if (imageId(engine, tag) === id) return true;
  try {
    execFileSync(engine.path, ["tag", id, tag], { env: engine.env, stdio: "pipe" });
  } catch {
    return false;
  }
  return imageId(engine, tag) === id;
}
