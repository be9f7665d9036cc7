/** The benchmark's upstream: node:http answering each operation with a canned valid body, as fast as it can. */
import { createServer } from "node:http";
import { example, searchResponse } from "../packages/gateway/test/support/fixtures.js";

const bodies = {
  machine: Buffer.from(JSON.stringify(example("UpdateClusterMachineResponse"))),
  key: Buffer.from(JSON.stringify(example("CreateApiKeyResponse"))),
  search: new Map([10, 100, 1000].map((n) => [`r${n}`, Buffer.from(JSON.stringify(searchResponse(n)))])),
};

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const url = req.url ?? "";
    const body = url.startsWith("/v1/resources/search")
      ? bodies.search.get(new URL(url, "http://x").searchParams.get("query") ?? "") ?? bodies.search.get("r10")
      : url.startsWith("/v1/api-keys")
        ? bodies.key
        : bodies.machine;
    res.writeHead(200, { "content-type": "application/json", "content-length": body!.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => console.error(`ready ${(server.address() as { port: number }).port}`));
