/**
 * The drain a load balancer can follow, on a real gateway in front of a real upstream, over raw keep-alive
 * connections: after drain() the listener refuses new connections, /readyz answers 503, answers say
 * `Connection: close`, a request in flight finishes, an idle connection stays open for the grace period (a
 * request may be on its way on it) and then closes, and the drain ends with the last connection; a request still
 * running at the deadline is cut and logged.
 */
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { drainable } from "@compute-api/runtime";
import { captureLogs } from "@compute-api/test-support";
import { afterEach, expect, it } from "vitest";
import { auth, json, type TestGateway, type TestUpstream, testGateway, testUpstream } from "./support/servers.js";

let upstream: TestUpstream;
let gateway: TestGateway;

afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** A raw keep-alive connection to the gateway, and the responses it has read. */
async function connection(
  port: number,
): Promise<{ socket: Socket; get(path: string): Promise<string>; closed: Promise<number> }> {
  const socket = connect({ host: "127.0.0.1", port });
  await once(socket, "connect");
  let buffered = "";
  let waiting: ((text: string) => void) | undefined;
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    buffered += chunk;
    // One whole response: headers and a Content-Length body.
    const end = buffered.indexOf("\r\n\r\n");
    const length = Number(/content-length: (\d+)/i.exec(buffered)?.[1] ?? 0);
    if (end >= 0 && buffered.length >= end + 4 + length && waiting) {
      const response = buffered.slice(0, end + 4 + length);
      buffered = buffered.slice(end + 4 + length);
      waiting(response);
    }
  });
  socket.on("error", () => {});
  const closed = new Promise<number>((resolve) => socket.once("close", () => resolve(Date.now())));
  return {
    socket,
    closed,
    get: (path) => {
      const answer = new Promise<string>((resolve) => (waiting = resolve));
      socket.write(`GET ${path} HTTP/1.1\r\nHost: gateway\r\nAuthorization: ${auth.authorization}\r\n\r\n`);
      return answer;
    },
  };
}

const search = (query: string) => `/v1/resources/search?query=${query}`;

it("refuses new connections, answers /readyz 503 and with Connection: close, lets a request finish, closes idle connections after the grace", async () => {
  upstream = await testUpstream();
  upstream.answer = (req, res) =>
    void setTimeout(() => json(res, 200, { results: [] }), req.url.includes("slow") ? 600 : 0);
  gateway = await testGateway({ upstream: upstream.url });
  const connections = drainable(gateway.server);
  const idle = await connection(gateway.port);
  const later = await connection(gateway.port);
  const busy = await connection(gateway.port);
  expect(await idle.get(search("a"))).toMatch(/^HTTP\/1\.1 200 [\s\S]*Connection: keep-alive/i);
  expect(await later.get(search("b"))).toMatch(/^HTTP\/1\.1 200 /);
  const slow = busy.get(search("slow"));
  // In flight: the upstream has it, and answers it 600 ms later.
  await expect.poll(() => upstream.received.some((r) => r.url === search("slow"))).toBe(true);

  gateway.gateway.drain();
  const started = Date.now();
  // A deadline far past the grace, so that what ends the drain is the last connection's close, not the deadline.
  const { lines, logger } = captureLogs<{ msg: string; connections?: number }>({ level: "info" });
  const drained = connections.drain({ graceMs: 800, timeoutMs: 20_000, logger }).then(() => Date.now());

  // A request on a connection that was idle when the drain began is answered, and closes its connection.
  const readyz = await later.get("/readyz");
  expect(readyz).toMatch(/^HTTP\/1\.1 503 [\s\S]*Connection: close[\s\S]*SHUTTING_DOWN/i);
  await later.closed;
  // The listener is closed.
  const refused = connect({ host: "127.0.0.1", port: gateway.port });
  const [error] = (await once(refused, "error")) as [NodeJS.ErrnoException];
  expect(error.code).toBe("ECONNREFUSED");
  // The request in flight finishes, told to close, and its connection closes after it.
  expect(await slow).toMatch(/^HTTP\/1\.1 200 [\s\S]*Connection: close/i);
  await busy.closed;
  // The connection that stays idle is kept for the grace period (800 ms), then closed; the drain ends with it,
  // long before its deadline (20 s).
  const idleClosed = (await idle.closed) - started;
  expect(idleClosed).toBeGreaterThanOrEqual(750);
  expect(idleClosed).toBeLessThan(10_000);
  expect((await drained) - started).toBeLessThan(10_000);
  // The grace says what it closed (with a balancer whose idle time is below it, it never has to).
  expect(lines).toContainEqual(
    expect.objectContaining({ msg: expect.stringMatching(/^shutdown grace over: closing \d+ idle connection/) }),
  );
});

it("cuts a request still running at the deadline, and logs it", async () => {
  upstream = await testUpstream();
  // Never answered: only the deadline ends the drain.
  upstream.answer = () => {};
  gateway = await testGateway({ upstream: upstream.url });
  const { lines, logger } = captureLogs({ level: "warn" });
  const connections = drainable(gateway.server);
  const busy = await connection(gateway.port);
  void busy.get(search("stuck"));
  await expect.poll(() => upstream.received.some((r) => r.url === search("stuck"))).toBe(true);
  await connections.drain({ graceMs: 10_000, timeoutMs: 300, logger });
  await busy.closed;
  expect(lines).toContainEqual(
    expect.objectContaining({ method: "GET", url: search("stuck"), msg: expect.stringMatching(/request cut/) }),
  );
});
