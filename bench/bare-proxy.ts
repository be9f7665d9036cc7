/** The benchmark's yardstick: the least a proxy does — node:http in, an undici keep-alive pool out, nothing checked. */
import { createServer } from "node:http";
import { Pool } from "undici";

const upstream = process.argv[2] ?? "";
const pool = new Pool(upstream, { connections: 128 });
const hopByHop = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "host",
  "upgrade",
  "te",
  "trailer",
  "proxy-authorization",
]);

const server = createServer(async (req, res) => {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined && !hopByHop.has(name)) headers[name] = value;
  try {
    const hasBody = req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined;
    const response = await pool.request({
      method: req.method as "GET",
      path: req.url ?? "/",
      headers,
      body: hasBody ? req : null,
    });
    const body = Buffer.from(await response.body.arrayBuffer());
    for (const [name, value] of Object.entries(response.headers))
      if (value !== undefined && !hopByHop.has(name)) res.setHeader(name, value);
    res.statusCode = response.statusCode;
    res.end(body);
  } catch {
    res.statusCode = 502;
    res.end();
  }
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => console.error(`ready ${(server.address() as { port: number }).port}`));
