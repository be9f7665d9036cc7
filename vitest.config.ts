import { defaultClientConditions, defaultServerConditions } from "vite";
import { configDefaults, defineConfig } from "vitest/config";

/** The exports condition of this repository's own packages that points at their TypeScript sources. */
const source = "@compute-api/source";
/** The suites that build and run the images with podman. */
const containers = "test/containers/**/*.test.ts";

export default defineConfig({
  // Workspace packages export their TypeScript sources under the "@compute-api/source" condition, so tests run
  // against src/ without a compile step. Vite's own default conditions are kept after it.
  resolve: { conditions: [source, ...defaultClientConditions] },
  // Without the bundlers' "module" condition, which Vitest also hands its workers as `--conditions module`: under
  // it Node's own require() of @opentelemetry/api (prom-client's) loads that package's ESM build, which Node cannot.
  ssr: {
    resolve: {
      conditions: [source, ...defaultServerConditions.filter((condition) => condition !== "module")],
      externalConditions: [source],
    },
  },
  test: {
    // Bounds for a hang, not budgets: the suite passes on a machine that other programs keep busy, where starting a
    // process or loading a data set takes several times as long as on an idle one. Speed is the benchmarks'.
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // The container suites run after every other file, and their images build meanwhile: the project's globalSetup
    // starts the build (the tests' base image, then the four images, or nothing when they are up to date) as the
    // run begins, beside the other suites, and each container suite waits for it (one build per run: a lock).
    projects: [
      {
        extends: true,
        test: {
          name: "suites",
          include: ["test/**/*.test.ts", "packages/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, containers],
          // Type-level tests (*.test-d.ts) of the client and the server, checked by tsc over their own files only.
          typecheck: {
            enabled: true,
            include: ["packages/client/test/**/*.test-d.ts", "packages/server/test/**/*.test-d.ts"],
            tsconfig: "tsconfig.type-tests.json",
          },
        },
      },
      {
        extends: true,
        test: {
          name: "containers",
          include: [containers],
          sequence: { groupOrder: 1 },
          globalSetup: ["test/containers/global-setup.ts"],
        },
      },
    ],
  },
});
