/** A logger whose lines are kept in memory, for the suites that read what a server logged. */
import { createLogger } from "@compute-api/runtime";

/** A logger and the lines it wrote so far. */
export interface CapturedLogs<Line> {
  /** The project's logger (createLogger), writing into this capture. */
  logger: ReturnType<typeof createLogger>;
  /** Each line, parsed, in the order written. */
  lines: Line[];
  /** Each line as written (JSON, without its newline), to search for what must never be logged. */
  raw: string[];
  /** The raw lines joined with newlines. */
  text(): string;
}

/** A logger at `level` (default `info`) whose lines are kept, parsed and as written. */
export function captureLogs<Line = Record<string, unknown>>({
  level = "info",
}: {
  level?: string;
} = {}): CapturedLogs<Line> {
  const lines: Line[] = [];
  const raw: string[] = [];
  const write = (chunk: string) => {
    for (const line of chunk.split("\n").filter(Boolean)) {
      raw.push(line);
      lines.push(JSON.parse(line) as Line);
    }
  };
  return { logger: createLogger({ level, destination: { write } }), lines, raw, text: () => raw.join("\n") };
}
