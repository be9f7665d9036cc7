// Run by timeout.test.ts as `node --expose-gc --import tsx`: a caller aborts a call in flight right after a full
// garbage collection. Exits 0 when the call rejects with the caller's reason, 1 when the abort got lost.
import { createComputeClient } from "../../src/index.js";

const inFlight = new Set<Request>();
const fetch = (request: Request) =>
  new Promise<Response>((_, reject) => {
    inFlight.add(request);
    request.signal.addEventListener("abort", () => reject(request.signal.reason), { once: true });
  });
const client = createComputeClient({ baseUrl: "https://compute.example", apiKey: "test-key", fetch, retry: false });
const controller = new AbortController();
// The abort settles the call at once; only a lost one leaves it pending this long, however busy the machine.
const lost = setTimeout(() => process.exit(1), 20_000);

client.GET("/v1/resources/search", { params: { query: { query: "alpha" } }, signal: controller.signal }).then(
  () => process.exit(1),
  (error: unknown) => {
    clearTimeout(lost);
    process.exit(error instanceof Error && error.message === "caller gave up" ? 0 : 1);
  },
);
setTimeout(() => {
  (globalThis as { gc?: () => void }).gc?.();
  controller.abort(new Error("caller gave up"));
}, 50);
