/**
 * The container project's globalSetup (vitest.config.ts): when this run holds a container suite, the images start
 * building as the run begins, in vitest's main process, while the other suites run (the container suites come last).
 * Each suite's own buildImages() then waits for this build (they share the machine's build lock) and finds the images
 * up to date; when this build fails, the first suite builds again and fails with the error itself.
 */
import { buildImages } from "@compute-api/test-support/podman";
import { debootstrapProgram, findProgram, podmanProgram, runcProgram } from "@compute-api/test-support/system";

export default function setup(): () => Promise<void> {
  // Without any of the three the container suites skip (or fail under CI) with their one line; no build to start.
  const programs = [podmanProgram, runcProgram, debootstrapProgram];
  if (programs.some((program) => findProgram(program) === undefined)) return async () => {};
  const building = buildImages().then(
    () => undefined,
    (error: Error) => {
      process.stderr.write(`the images' build at the start of the run failed: ${error.message.split("\n")[0]}\n`);
    },
  );
  return () => building;
}
