/** A real nginx (@compute-api/test-support/nginx) as a reverse proxy in front of a Node server: gzip, upstream keep-alive, idle clients closed, a clean stop. */
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, request, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { gunzipSync } from "node:zlib";
import { isRunning } from "@compute-api/test-support";
import { type Nginx, skipWithoutNginx, startNginx } from "@compute-api/test-support/nginx";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** GETs `path` from `url` on a connection of its own; the body as received, still compressed if it was. */
function get(
  url: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { headers, agent: false, timeout: 5_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on("error", reject);
    req.end();
  });
}

describe.skipIf(skipWithoutNginx())("nginx in front of a Node server", () => {
  let backend: Server;
  let backendConnections = 0;
  let nginx: Nginx;
  const items = Array.from({ length: 100 }, (_, i) => ({ id: `item-${i}`, name: `the item numbered ${i}` }));

  beforeAll(async () => {
    backend = createServer((req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ path: req.url, items })),
    );
    backend.on("connection", () => backendConnections++);
    backend.listen(0, "127.0.0.1");
    await once(backend, "listening");
    const backendPort = (backend.address() as AddressInfo).port;
    nginx = await startNginx(
      (port) => `
  upstream backend {
    server 127.0.0.1:${backendPort};
    keepalive 16;
  }
  keepalive_timeout 2s;
  gzip on;
  gzip_types application/json;
  gzip_min_length 0;
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://backend;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }`,
    );
  });
  afterAll(async () => {
    await nginx?.stop();
    backend?.closeAllConnections();
    backend?.close();
  });

  it("passes requests to the backend, gzips JSON for a client that accepts it, and logs them", async () => {
    const zipped = await get(nginx.url, "/zipped", { "accept-encoding": "gzip" });
    expect(zipped.status).toBe(200);
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(zipped.body).toString("utf8"))).toEqual({ path: "/zipped", items });
    const plain = await get(nginx.url, "/plain");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(plain.body.toString("utf8"))).toEqual({ path: "/plain", items });
    expect(nginx.accessLog()).toMatch(/"GET \/zipped HTTP\/1\.1" 200 [\s\S]*"GET \/plain HTTP\/1\.1" 200 /);
  });

  it("keeps its connections to the backend alive across requests (upstream keepalive)", async () => {
    const before = backendConnections;
    for (let i = 0; i < 5; i++) expect((await get(nginx.url, `/again/${i}`)).status).toBe(200);
    // One new connection at most (the first test's may have been reused), not one per request.
    expect(backendConnections - before).toBeLessThanOrEqual(1);
  });

  it("closes an idle client connection after keepalive_timeout (2 s)", async () => {
    const socket = connect({ host: "127.0.0.1", port: nginx.port });
    await once(socket, "connect");
    socket.write("GET /idle HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    let received = "";
    socket.setEncoding("utf8");
    // The backend's JSON comes chunked through nginx; its last chunk arrives with it.
    const answered = new Promise<number>((resolve) =>
      socket.on("data", (chunk: string) => {
        received += chunk;
        if (received.includes('"path":"/idle"')) resolve(Date.now());
      }),
    );
    const closed = new Promise<number>((resolve) => socket.once("close", () => resolve(Date.now())));
    // nginx's default keepalive_timeout is 75 s: closed within 20 s, the config's 2 s is what closed it, however
    // busy the machine.
    const bound = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error("nginx kept the idle connection open for 20 s")), 20_000).unref(),
    );
    try {
      const answeredAt = await Promise.race([answered, bound]);
      expect(received).toMatch(/^HTTP\/1\.1 200 /);
      const idle = (await Promise.race([closed, bound])) - answeredAt;
      expect(idle).toBeGreaterThan(1_500);
      expect(idle).toBeLessThan(20_000);
    } finally {
      socket.destroy();
    }
  });

  it("fails to start with nginx's own message when it rejects the config", async () => {
    await expect(startNginx(() => "no_such_directive on;")).rejects.toThrow(/unknown directive "no_such_directive"/);
  });

  it("leaves no nginx process once stopped", async () => {
    const other = await startNginx((port) => `server { listen 127.0.0.1:${port}; return 200 "ok"; }`);
    expect((await get(other.url, "/")).body.toString("utf8")).toBe("ok");
    const pids = other.pids();
    expect(pids.length).toBeGreaterThanOrEqual(2); // the master and its worker
    await other.stop();
    expect(pids.filter(isRunning)).toEqual([]);
    expect(other.pids()).toEqual([]);
    expect(other.errorLog()).toMatch(/gracefully shutting down/);
  });
});
