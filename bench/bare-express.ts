/**
 * `npm run bench:stub`'s yardstick: a bare Express 5 app answering the stub's health JSON at /healthz and, given
 * the stub's URL and a key, the stub's own answer to `query=alpha` at /v1/resources/search (fetched once at
 * start, sent with `res.json` as the stub sends it) — what Express alone costs, with no validation, state or search.
 */
import express from "express";

const [stubUrl, apiKey] = process.argv.slice(2);
const app = express();
app.disable("x-powered-by");
app.get("/healthz", (_req, res) => {
  res.json({ status: "ok" });
});
if (stubUrl && apiKey) {
  const answer = await fetch(`${stubUrl}/v1/resources/search?query=alpha`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  const body: unknown = await answer.json();
  app.get("/v1/resources/search", (_req, res) => {
    res.json(body);
  });
}
const server = app.listen(0, "127.0.0.1", () => console.error(`ready ${(server.address() as { port: number }).port}`));
server.keepAliveTimeout = 60_000;
