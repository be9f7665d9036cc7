/**
 * A page of docs/stub-server.md's browser example (examples/msw/browser.ts) as an app would have it: the example starts the
 * worker, then the app's client searches. What came back is left on `window` for the test to read.
 */
import "../../examples/msw/browser.js";
import { createComputeClient } from "@compute-api/client";

(window as unknown as { exampleResult: Promise<unknown> }).exampleResult = (async () => {
  const client = createComputeClient({ baseUrl: "https://compute.example", apiKey: "cak_dev_alice" });
  const { response, data } = await client.GET("/v1/resources/search", { params: { query: { query: "type:project" } } });
  return { status: response.status, names: data?.results.map((r) => r.resourceName) };
})().catch((error: unknown) => ({ error: String(error) }));
