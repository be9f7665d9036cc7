import { defineConfig } from "vitest/config";

export default defineConfig({
  // Workspace packages export their TypeScript sources under the "source" condition, so tests run
  // against src/ without a compile step.
  resolve: { conditions: ["source", "import", "default"] },
  ssr: { resolve: { conditions: ["source", "import", "default"] } },
  test: {
    include: ["test/**/*.test.ts", "packages/*/test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
