import spec from "@compute-api/spec/openapi.json" with { type: "json" };
import { createStubHandlers } from "@compute-api/stub-server/msw";
import { setupWorker } from "msw/browser";

const stub = createStubHandlers({ baseUrl: "https://compute.example", spec, apiKeys: { alice: "cak_dev_alice" } });
await setupWorker(...stub.handlers).start({ onUnhandledRequest: "bypass" });
