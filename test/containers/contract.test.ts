/**
 * The contract suite (test/contract) with the typed client talking to the gateway's container, built as
 * `npm run images` builds it, whose upstream is the stub in this process (the container shares the host's network).
 */
import { buildImages, skipWithoutPodman, startContainer } from "@compute-api/test-support/podman";
import { beforeAll, describe } from "vitest";
import { contractSuite } from "../contract/support/contract-suite.js";
import { buildBound, tagOf } from "./support.js";

describe.skipIf(skipWithoutPodman())("the contract suite through the gateway's container", () => {
  let image: string;
  beforeAll(async () => {
    image = tagOf(await buildImages(), "gateway");
  }, buildBound);

  contractSuite("gateway", {
    gateway: async (upstream, timeoutMs) => {
      const container = await startContainer(image, {
        args: ["--upstream", upstream, "--timeout-ms", String(timeoutMs), "--log-level", "warn"],
      });
      return { url: container.url, close: () => container.remove() };
    },
  });
});
