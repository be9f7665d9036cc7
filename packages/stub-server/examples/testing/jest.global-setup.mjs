// jest.global-setup.mjs — `globalSetup` and `globalTeardown` in jest.config.mjs; the tests read process.env
import { startStub } from "@compute-api/stub-server/testing";

export default async function globalSetup() {
  const stub = await startStub();
  process.env.STUB_URL = stub.url;
  process.env.STUB_API_KEY = stub.apiKey;
  globalThis.__computeStub = stub; // for the teardown, which runs in this same context
}
