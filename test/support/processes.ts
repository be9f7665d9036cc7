/**
 * What the suites that start real servers share: a free 127.0.0.1 port to give one, and the state of its processes
 * as /proc tells it, to check that none outlives its stop.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";

/** A port on 127.0.0.1 that was free a moment ago (another process may take it before its user binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** The live (not zombie) children of `pid`, from /proc. */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const [state, ppid] = statFields(Number(name));
    if (Number(ppid) === pid && state !== "Z" && state !== "X") children.push(Number(name));
  }
  return children;
}

/** Whether `pid` is a live process (not a zombie), from /proc. */
export function isRunning(pid: number): boolean {
  const [state] = statFields(pid);
  return state !== undefined && state !== "Z" && state !== "X";
}

/** The fields of /proc/`pid`/stat after the command name (state, ppid, …); none when there is no such process. */
function statFields(pid: number): string[] {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return [];
  }
  // The command name may hold spaces and parentheses; the fields after its closing one are fixed.
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}
