/** Test upstreams and gateways on ephemeral 127.0.0.1 ports, the gateways' log lines kept. */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { ResponseValidationMode } from "@compute-api/contract";
import { captureLogs, type Listening, listenLocal } from "@compute-api/test-support";
import { afterAll, beforeAll } from "vitest";
import { createGateway, type Gateway, type GatewayOptions } from "../../src/index.js";

/** A request as the upstream received it. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  rawHeaders: string[];
  body: Buffer;
}

/** An upstream whose answer each test sets, which records (and counts) what reaches it. */
export interface TestUpstream extends Listening {
  received: Received[];
  /** Requests whose connection closed before the upstream answered. */
  aborted: Received[];
  /** How the next requests are answered; default 200 `{}`. */
  answer: (req: Received, res: ServerResponse) => void;
}

/** Starts a TestUpstream. */
export async function testUpstream(): Promise<TestUpstream> {
  let upstream: TestUpstream | undefined;
  const listening = await listenLocal((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const received: Received = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks),
      };
      upstream?.received.push(received);
      res.on("close", () => {
        if (!res.writableFinished) upstream?.aborted.push(received);
      });
      upstream?.answer(received, res);
    });
  });
  upstream = Object.assign(listening, {
    received: [],
    aborted: [],
    answer: (_req: Received, res: ServerResponse) => json(res, 200, {}),
  });
  return upstream;
}

/** Answers with a JSON body. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A gateway on an ephemeral port, with the JSON log lines it wrote. */
export interface TestGateway extends Listening {
  gateway: Gateway;
  logs: Record<string, unknown>[];
  /** The raw log text, for searching for anything that must never be logged. */
  logText(): string;
}

/** Builds and starts a gateway in front of upstream, logging into memory. */
export async function testGateway(options: GatewayOptions): Promise<TestGateway> {
  const logs = captureLogs({ level: "debug" });
  const gateway = await createGateway({ logger: logs.logger, ...options });
  const listening = await listenLocal(createServer(gateway.app));
  return {
    ...listening,
    gateway,
    logs: logs.lines,
    logText: logs.text,
    close: async () => {
      await listening.close();
      await gateway.close();
    },
  };
}

/** The response-validation modes, in the order `gatewaysByMode` starts its gateways. */
export const modes: ResponseValidationMode[] = ["enforce", "report", "off"];

/** One test upstream and, in front of it, a gateway per response-validation mode. */
export interface GatewaysByMode {
  upstream: TestUpstream;
  gateways: Map<ResponseValidationMode, TestGateway>;
}

/**
 * Registers hooks that start a GatewaysByMode before the tests of the file (or block) it is called in and stop it
 * after them; the gateways get the options besides their upstream and mode. The fields are set once the hooks ran.
 */
export function gatewaysByMode(options: Omit<GatewayOptions, "upstream" | "responseValidation"> = {}): GatewaysByMode {
  const servers = { gateways: new Map() } as GatewaysByMode;
  beforeAll(async () => {
    servers.upstream = await testUpstream();
    for (const mode of modes)
      servers.gateways.set(
        mode,
        await testGateway({ upstream: servers.upstream.url, responseValidation: mode, ...options }),
      );
  });
  afterAll(async () => {
    for (const gateway of servers.gateways.values()) await gateway.close();
    await servers.upstream.close();
  });
  return servers;
}

/** A valid bearer header for the gateway's form check (the key itself is never checked). */
export const auth = { authorization: "Bearer test-key_123" };
