/**
 * The state of the processes a suite started, as /proc tells it, to check that none outlives its stop (nginx's
 * master and workers, PostgreSQL's postmaster and backends, the project's commands).
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

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

/** SIGKILLs the process group `pid` leads (a master and its workers, a command and its children), if any is left. */
export function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Whether any process of the group `pid` leads is left. */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * How many established TCP connections to local `port` the process `pid` holds: those it has accepted (a connection
 * still in the kernel's queue is no socket of the process yet, and a server that stops listening drops it), from
 * /proc/`pid`/fd and /proc/net/tcp{,6}.
 */
export function acceptedConnections(pid: number, port: number): number {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return 0;
  }
  for (const fd of fds) {
    try {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (socket?.[1]) inodes.add(socket[1]);
    } catch {
      // closed meanwhile
    }
  }
  let count = 0;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let lines: string[];
    try {
      lines = readFileSync(table, "utf8").split("\n").slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      // sl local_address rem_address st … inode: the state 01 is ESTABLISHED, the port hexadecimal.
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (local === undefined || inode === undefined || state !== "01") continue;
      if (Number.parseInt(local.slice(local.lastIndexOf(":") + 1), 16) === port && inodes.has(inode)) count++;
    }
  }
  return count;
}
