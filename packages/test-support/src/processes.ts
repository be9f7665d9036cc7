/**
 * The state of the processes a suite started, as /proc tells it, to check that none outlives its stop (nginx's
 * master and workers, PostgreSQL's postmaster and backends, the project's commands).
 */
import { readdirSync, readFileSync } from "node:fs";

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
