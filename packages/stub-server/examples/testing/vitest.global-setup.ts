// vitest.global-setup.ts — one stub for the whole run: `globalSetup: ["./vitest.global-setup.ts"]` in vitest.config.ts
import { startStub } from "@compute-api/stub-server/testing";
import type { TestProject } from "vitest/node";

export default async function setup(project: TestProject) {
  const stub = await startStub(); // the built-in data, on 127.0.0.1 and a free port
  project.provide("stub", { url: stub.url, apiKey: stub.apiKey });
  return () => stub.close();
}

declare module "vitest" {
  export interface ProvidedContext {
    stub: { url: string; apiKey: string };
  }
}
