/**
 * The page of the MSW browser test, bundled for Chromium: the stub's MSW handlers registered in a real service
 * worker (`setupWorker`, msw's own mockServiceWorker.js served beside the page), then the held requests sent with
 * the typed client. What it found is left on `window` for the test to read.
 */

import type { OpenApiDocument } from "@compute-api/contract";
import spec from "@compute-api/spec/openapi.json" with { type: "json" };
import { createStubHandlers } from "@compute-api/stub-server/msw";
import { setupWorker } from "msw/browser";
import { type HeldAnswer, heldKeys, sendHeldRequests } from "./held-requests.js";

/** What the page reports. */
export interface PageResult {
  answers?: HeldAnswer[];
  /** Whether a service worker controlled the page while the requests were sent. */
  controlled?: boolean;
  /** The state control, in the browser: the first search again after reset(). */
  resetAlike?: boolean;
  error?: string;
}

const baseUrl = "https://compute.example";

async function run(): Promise<PageResult> {
  const stub = createStubHandlers({ baseUrl, spec: spec as unknown as OpenApiDocument, apiKeys: heldKeys });
  const worker = setupWorker(...stub.handlers);
  await worker.start({ serviceWorker: { url: "/mockServiceWorker.js" }, onUnhandledRequest: "error", quiet: true });
  const answers = await sendHeldRequests(baseUrl);
  const controlled = navigator.serviceWorker.controller !== null;
  stub.reset();
  const again = await sendHeldRequests(baseUrl);
  return { answers, controlled, resetAlike: JSON.stringify(again) === JSON.stringify(answers) };
}

(window as unknown as { mswResult: Promise<PageResult> }).mswResult = run().catch((error: unknown) => ({
  error: error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ""}` : String(error),
}));
