/**
 * The gateway under benchmark, built from dist/: `off` (no validation at all), `requests` (requests only) or
 * `both` (requests and responses, enforce). With PROFILE_DIR set it records a CPU profile of the serving
 * phase only (start-up and validator compilation excluded) and writes it there on SIGTERM.
 */
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { createLogger } from "@compute-api/contract";
import { createGateway } from "@compute-api/gateway";

const [upstream = "", mode = "both"] = process.argv.slice(2);
const profileDir = process.env["PROFILE_DIR"];
const gateway = await createGateway({
  upstream,
  validate: mode !== "off",
  responseValidation: mode === "both" ? "enforce" : "off",
  // Logging stays on, as in production; the lines go to stdout, which the benchmark discards.
  logger: createLogger(),
});
const server = createServer(gateway.app);
server.keepAliveTimeout = 60_000;

const session = profileDir ? new Session() : undefined;
if (session) {
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
}
process.once("SIGTERM", async () => {
  if (session && profileDir) {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(join(profileDir, `gateway-${mode}.cpuprofile`), JSON.stringify(profile));
  }
  process.exit(0);
});
server.listen(0, "127.0.0.1", () => console.error(`ready ${(server.address() as { port: number }).port}`));
