/**
 * The `compute-conformance` command: flags (commander, each with its variable; the URL and the key shared), a
 * first line saying what the run will send, a progress line while it runs, the report, `--junit`, and the exit
 * status: 0 when every check passed, 1 when one failed or the run could not be made, 2 for bad flags.
 */
import { writeFileSync } from "node:fs";
import { loadSpec, specOperations } from "@compute-api/contract";
import {
  apiKeyOption,
  CliCommand,
  type CliIo,
  commandLine,
  defaultText,
  integerFlag,
  packageVersion,
  parseCommandLine,
  required,
  serviceUrlOption,
  usageError,
  usageOr,
} from "@compute-api/runtime/cli";
import { type Command, InvalidArgumentError, Option } from "commander";
import { operationShapes } from "./operation-shapes.js";
import { formatReport, junitReport } from "./report.js";
import { type ConformanceOptions, randomSeed, runConformance, runDefaults } from "./run.js";
import { writesState } from "./spec-generators.js";
import { statefulOperations } from "./stateful-generators.js";

/** Where the command writes; `tty`: whether stderr is a terminal (the progress line is redrawn in place there). */
export type { CliIo } from "@compute-api/runtime/cli";

const version = packageVersion(import.meta.url);

const operationList = (value: string, previous: string[] = []) => {
  const known = specOperations(loadSpec()).map((o) => String(o.operation.operationId));
  const list = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const id of list)
    if (!known.includes(id))
      throw new InvalidArgumentError(`'${id}' is not an operation of the spec (${known.join(", ")}).`);
  return [...previous, ...list];
};

function program(io: CliIo): Command {
  const command = new CliCommand("compute-conformance")
    .description(
      "Holds a running compute service backend to the OpenAPI spec: generated valid and broken requests, each answer judged by named checks.",
    )
    .version(version, "-V, --version", "print the version and exit")
    .addOption(
      required(
        serviceUrlOption("--base-url <url>", "the backend's origin, without /v1, such as https://staging.example.com"),
        "the backend's URL, such as http://127.0.0.1:4010",
      ),
    )
    .addOption(required(apiKeyOption("a key of the backend; never printed"), "a key of the backend"))
    .addOption(
      defaultText(
        new Option("--runs <n>", "cases per generator").argParser(integerFlag(1, 100_000)).conflicts("seconds"),
        String(runDefaults.runs),
      ),
    )
    .addOption(
      new Option("--seconds <n>", "generate and send cases for this long instead").argParser(integerFlag(1, 86_400)),
    )
    .addOption(
      defaultText(
        new Option("--seed <n>", "seed of the generators, to replay a run").argParser(integerFlag(0, 2 ** 31 - 1)),
        "a new one, printed",
      ),
    )
    .addOption(
      new Option(
        "--writes",
        "also send schema-valid writes: PATCHes of --machine (restored at the end) and new API keys named conformance-…",
      ),
    )
    .addOption(
      new Option(
        "--project <id>",
        "with --writes: the project of the machine, one a type:project search shows the key",
      ),
    )
    .addOption(
      new Option(
        "--machine <id>",
        "with --writes: the only machine written to, listed in a cluster's machines by the search type:cluster <project>",
      ),
    )
    .addOption(
      new Option("--only <operations>", "only these operations (operationIds, comma-separated or repeated)").argParser(
        operationList,
      ),
    )
    .addOption(
      new Option("--rate <n>", "requests a second at most").default(runDefaults.rate).argParser(integerFlag(1, 10_000)),
    )
    .addOption(
      new Option("--timeout-ms <n>", "how long one answer may take")
        .default(runDefaults.timeoutMs)
        .argParser(integerFlag(1, 600_000)),
    )
    .addOption(new Option("--junit <file>", "also write a JUnit XML report there, for CI"));
  return commandLine(command, io, {
    renamed: { env: { CONFORMANCE_BASE_URL: "--base-url" } },
    examples: [
      "COMPUTE_API_KEY=$KEY compute-conformance --base-url http://127.0.0.1:4010",
      "COMPUTE_API_KEY=$KEY compute-conformance --base-url https://staging.example.com --seconds 60 --junit report.xml",
      "COMPUTE_API_KEY=$KEY compute-conformance --base-url http://127.0.0.1:4011 --writes --project proj-alpha --machine cm-alpha-01",
    ],
    exitStatus: {
      0: "every check passed (warnings included); or --help, --version",
      1: "a check failed, or the run could not be made (no answer, 404, the key refused)",
      2: "a flag or variable is invalid, or a required one is missing",
    },
  });
}

interface Flags {
  baseUrl?: string;
  apiKey?: string;
  runs?: number;
  seconds?: number;
  seed?: number;
  writes?: boolean;
  project?: string;
  machine?: string;
  only?: string[];
  rate: number;
  timeoutMs: number;
  junit?: string;
}

/** Runs the command; resolves with its exit status. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const command = program(io);
  const flags = usageOr(() => {
    const parsed = parseCommandLine<Flags>(command, argv, io.stderr);
    if (parsed.writes && (!parsed.project || !parsed.machine))
      usageError(command, "--writes needs --project and --machine: the one machine it may write to");
    if (!parsed.writes && (parsed.project || parsed.machine))
      usageError(command, "--project and --machine go with --writes");
    return parsed;
  });
  if (typeof flags === "number") return flags;
  const seed = flags.seed ?? randomSeed();
  const writes = flags.writes ? { projectId: flags.project!, machineId: flags.machine! } : undefined;
  io.stdout(
    `compute-conformance ${version} → ${flags.baseUrl}, seed ${seed}: ` +
      (writes
        ? `with writes — schema-valid PATCHes of ${writes.projectId}/${writes.machineId} (its power state and price restored at the end), PATCHes of its volumes that a conforming backend refuses (put back if accepted), and API keys named conformance-…; ${otherWrites(writes.projectId)}.\n`
        : "read-only — searches and other reads, and only writes a conforming backend refuses before changing anything (broken bodies, ids that do not exist, no key).\n"),
  );
  let shown = 0;
  const options: ConformanceOptions = {
    baseUrl: flags.baseUrl!,
    apiKey: flags.apiKey!,
    seed,
    rate: flags.rate,
    timeoutMs: flags.timeoutMs,
    ...(flags.runs === undefined ? {} : { runs: flags.runs }),
    ...(flags.seconds === undefined ? {} : { seconds: flags.seconds }),
    ...(writes ? { writes } : {}),
    ...(flags.only ? { only: flags.only } : {}),
    onProgress: ({ requests, elapsedMs, failing }) => {
      if (elapsedMs - shown < (io.tty ? 200 : 5000)) return;
      shown = elapsedMs;
      const line = `  ${requests} requests · ${(elapsedMs / 1000).toFixed(1)} s · ${failing === 0 ? "no check failing" : `${failing} checks failing`}`;
      io.stderr(io.tty ? `\r${line}\u001b[K` : `${line}\n`);
    },
  };
  let report: Awaited<ReturnType<typeof runConformance>>;
  try {
    report = await runConformance(options);
  } catch (error) {
    io.stderr(`${io.tty ? "\r\u001b[K" : ""}compute-conformance: ${(error as Error).message}\n`);
    return 1;
  }
  if (io.tty) io.stderr("\r\u001b[K");
  const replay = ['COMPUTE_API_KEY="$KEY"', "compute-conformance", "--base-url", flags.baseUrl, "--seed", String(seed)]
    .concat(
      flags.seconds === undefined
        ? ["--runs", String(flags.runs ?? runDefaults.runs)]
        : ["--seconds", String(flags.seconds)],
    )
    .concat(writes ? ["--writes", "--project", writes.projectId, "--machine", writes.machineId] : [])
    .concat((flags.only ?? []).flatMap((o) => ["--only", o]))
    .join(" ");
  io.stdout(`${formatReport(report, replay, flags.apiKey!)}\n`);
  if (flags.junit) {
    writeFileSync(flags.junit, junitReport(report, flags.apiKey!));
    io.stdout(`JUnit report: ${flags.junit}\n`);
  }
  return report.passed ? 0 : 1;
}

/** What else a run with writes writes: the spec's other operations that write, in the project, or nothing. */
function otherWrites(projectId: string): string {
  const others = [...operationShapes(loadSpec()).values()]
    .filter((shape) => writesState(shape.method) && !statefulOperations.includes(shape.operationId))
    .map((shape) => shape.operationId);
  return others.length === 0 ? "nothing else is written" : `and valid requests of ${others.join(", ")} in ${projectId}`;
}
