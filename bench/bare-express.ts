/** `npm run bench:stub`'s yardstick for /healthz: a bare Express 5 app answering the stub's health JSON, nothing else. */
import express from "express";

const app = express();
app.disable("x-powered-by");
app.get("/healthz", (_req, res) => {
  res.json({ status: "ok" });
});
const server = app.listen(0, "127.0.0.1", () => console.error(`ready ${(server.address() as { port: number }).port}`));
server.keepAliveTimeout = 60_000;
