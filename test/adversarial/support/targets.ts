/**
 * What the adversarial suites attack: the stub server on an ephemeral 127.0.0.1 port, or the validation gateway
 * listening in front of it. Each built-in user gets a known key.
 */
import { createServer } from "node:http";
import { builtinFixtures } from "@compute-api/fixtures";
import { createGateway } from "@compute-api/gateway";
import { answerClientErrors, createLogger } from "@compute-api/runtime";
import { startServer } from "@compute-api/stub-server";
import { listenLocal } from "@compute-api/test-support";

/** Where requests go: straight to the stub, or through a gateway whose upstream is the stub. */
export type TargetName = "stub" | "gateway";

/** The built-in users. */
export type UserId = "alice" | "bob" | "carol" | "dave" | "erin";

/** A running target. */
export interface Target {
  name: TargetName;
  /** Where to send requests. */
  url: string;
  /** The stub itself (the same as `url` for the stub target). */
  stubUrl: string;
  /** A valid key of each built-in user. */
  keys: Record<UserId, string>;
  close(): Promise<void>;
}

/** The built-in data the stub serves. */
export const fixtures = builtinFixtures();

/** A key for each built-in user (the stub registers them under the key id `default`). */
export const userKeys: Record<UserId, string> = {
  alice: "cak_adversarial-alice",
  bob: "cak_adversarial-bob",
  carol: "cak_adversarial-carol",
  dave: "cak_adversarial-dave",
  erin: "cak_adversarial-erin",
};

/** Starts a fresh stub (fresh state) and, for `gateway`, a gateway in front of it. */
export async function startTarget(name: TargetName): Promise<Target> {
  const stub = await startServer({ port: 0, host: "127.0.0.1", apiKeys: userKeys });
  if (name === "stub") return { name, url: stub.url, stubUrl: stub.url, keys: userKeys, close: () => stub.close() };
  const gateway = await createGateway({ upstream: stub.url, logger: createLogger({ level: "silent" }) });
  const server = createServer(gateway.app);
  // As compute-gateway's serve() does.
  answerClientErrors(server);
  const { url } = await listenLocal(server);
  return {
    name,
    url,
    stubUrl: stub.url,
    keys: userKeys,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await gateway.close();
      await stub.close();
    },
  };
}
