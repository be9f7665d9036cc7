/**
 * What the MCP suites share: the real stub (in process, on an ephemeral port, with its request journal), compute-mcp started as its command (from source) over stdio or Streamable HTTP, and the SDK's own client
 * connected to it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import {
  type StartStubOptions,
  type StubHandle,
  startStub as startTestingStub,
} from "@compute-api/stub-server/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** compute-mcp's entry, run from source as the repository's other command tests run theirs. */
export const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url));
/** The node arguments that run the command from source. */
export const nodeArgs = ["--conditions", "@compute-api/source", "--import", "tsx", bin];

/** Keys of the stub's users (alice sees proj-alpha and proj-beta; proj-gamma is not hers). */
export const keys = { alice: "cak_mcp-test-alice-0001", bob: "cak_mcp-test-bob-0002" };

/** A stub on 127.0.0.1 with its admin API as functions: its journal tells what reached it. */
export type TestStub = StubHandle;

/** Starts a stub in this process with the test keys (and `faults`, if given). */
export function startStub(options: Pick<StartStubOptions, "faults"> = {}): Promise<TestStub> {
  return startTestingStub({ apiKey: keys.alice, apiKeys: { bob: keys.bob }, ...options });
}

/** An MCP client connected to a compute-mcp, and what that compute-mcp wrote to standard error. */
export interface Connected {
  client: Client;
  stderr(): string;
  close(): Promise<void>;
}

const clientInfo = { name: "compute-mcp-tests", version: "1.0.0" };

/** Starts compute-mcp over stdio, as an agent host does, and connects the SDK's client to it. */
export async function connectStdio(
  baseUrl: string,
  apiKey: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeArgs, "--base-url", baseUrl, ...args],
    env: { PATH: process.env.PATH ?? "", COMPUTE_API_KEY: apiKey, LOG_LEVEL: "info", ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client(clientInfo);
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** A compute-mcp serving Streamable HTTP. */
export interface HttpMcp {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  child: ChildProcess;
  stderr(): string;
  close(): Promise<void>;
}

/** Every process the suites started; any left when the file ends is killed. */
const started = new Set<ChildProcess>();
export function killStarted(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}

/** Starts `compute-mcp --http` on a free port; resolves once it says where it listens. */
export function startHttp(baseUrl: string, apiKey: string, env: Record<string, string> = {}, args: string[] = []) {
  // No grace for idle connections at SIGTERM: the suites stop their servers at once.
  const httpArgs = ["--http", "--port", "0", "--shutdown-grace", "0"];
  const child = spawn(process.execPath, [...nodeArgs, "--base-url", baseUrl, ...httpArgs, ...args], {
    env: { PATH: process.env.PATH ?? "", COMPUTE_API_KEY: apiKey, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.add(child);
  let stderr = "";
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  return new Promise<HttpMcp>((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /"url":"(http:\/\/[^"]+)"/.exec(stderr)?.[1];
      if (url) {
        resolve({
          url,
          child,
          stderr: () => stderr,
          close: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once("exit", () => done());
              child.kill("SIGTERM");
            }),
        });
      }
    });
    child.once("exit", (code) => reject(new Error(`compute-mcp exited with ${code}: ${stderr}${stdout}`)));
  });
}

/** Connects the SDK's client to a Streamable HTTP endpoint, with a bearer token if given. */
export async function connectHttp(url: string, token?: string): Promise<Client> {
  const client = new Client(clientInfo);
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** The text of a tool result's first content item. */
export function textOf(result: object): string {
  const [first] = ("content" in result && Array.isArray(result.content) ? result.content : []) as {
    type: string;
    text?: string;
  }[];
  return first?.type === "text" ? (first.text ?? "") : "";
}

/** Runs compute-mcp (against a port nothing listens on) to its exit: its status and standard error. */
export function runToExit(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs, "--base-url", "http://127.0.0.1:9", ...args], {
      env: { PATH: process.env.PATH ?? "", COMPUTE_API_KEY: keys.alice, ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("exit", (code) => resolve({ code, stderr }));
  });
}
