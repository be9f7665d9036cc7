/** Where a `node --cpu-prof` profile spends its time: self time by package (or node internals) and top functions. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Names the owner of a frame: an npm package, a package of this repo, node itself, or the VM. */
function owner(url: string, fn: string): string {
  // Ajv compiles schemas to functions named validate<n>, evaluated without a URL.
  if (!url) return fn.startsWith("(") ? fn : /^validate\d+$/.test(fn) ? "ajv (compiled schemas)" : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return pkg;
  const ours = /packages\/([^/]+)\//.exec(url)?.[1];
  if (ours) return `@compute-api/${ours}`;
  if (url.startsWith("node:")) return `node:${url.slice(5).split("/")[1] ?? url.slice(5)}`;
  return url;
}

/** Prints the summary of every .cpuprofile in dir. */
export function summarizeProfiles(dir: string): void {
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
    const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as Profile;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
    const byOwner = new Map<string, number>();
    const inclusive = new Map<string, number>();
    const byFunction = new Map<string, number>();
    let total = 0;
    profile.samples.forEach((id, i) => {
      const node = byId.get(id);
      const dt = profile.timeDeltas[i] ?? 0;
      if (!node || node.callFrame.functionName === "(idle)") return;
      total += dt;
      const who = owner(node.callFrame.url, node.callFrame.functionName);
      byOwner.set(who, (byOwner.get(who) ?? 0) + dt);
      const fn = `${who} ${node.callFrame.functionName || "(anonymous)"}:${node.callFrame.lineNumber + 1}`;
      byFunction.set(fn, (byFunction.get(fn) ?? 0) + dt);
      // Inclusive: every package with a frame on the sample's stack.
      const onStack = new Set<string>();
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const frame = byId.get(at)?.callFrame;
        if (frame) onStack.add(owner(frame.url, frame.functionName));
      }
      for (const who of onStack) inclusive.set(who, (inclusive.get(who) ?? 0) + dt);
    });
    const top = (m: Map<string, number>, n: number) =>
      [...m.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([k, v]) => `  ${((v / total) * 100).toFixed(1).padStart(5)} %  ${k}`)
        .join("\n");
    console.log(
      `\n${file}: ${(total / 1e6).toFixed(1)} s busy\nself time by package:\n${top(byOwner, 15)}\n` +
        `inclusive time by package (with what it calls):\n${top(inclusive, 15)}\ntop functions (self):\n${top(byFunction, 20)}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) summarizeProfiles(process.argv[2] ?? "bench/profiles");
