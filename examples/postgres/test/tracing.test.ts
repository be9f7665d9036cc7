/**
 * The Postgres example's traces: compute-postgres started with the standard `OTEL_*` variables, on a real
 * PostgreSQL server through --database-url (a pg.Pool), exports each request's SERVER span and, nested under it, the
 * CLIENT spans of its queries made by @opentelemetry/instrumentation-pg, registered before `pg` is loaded although
 * the example is ES modules. The spans hold the SQL text with its placeholders, never the key or a bound value.
 * On PGlite (no `pg` driver) the request's span is exported alone.
 */

import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "@compute-api/test-support/otlp";
import { type Postgres, skipWithoutPostgres, startPostgres } from "@compute-api/test-support/postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type CommandProcess, killCommandProcesses, startCommandProcess } from "../../../test/production/support.js";

const apiKey = "cak_pg-tracing-zqkey-0123456789";
const traceId = "0af7651916cd43dd8448eb211c80319c";
const callerSpanId = "b7ad6b7169203331";

afterEach(() => killCommandProcesses());

/** Starts compute-postgres with `args`, exporting to `receiver` (spans sent 50 ms after they end). */
async function startTraced(receiver: OtlpReceiver, args: string[]): Promise<{ url: string; command: CommandProcess }> {
  const command = await startCommandProcess(
    "compute-postgres",
    ["--port", "0", "--api-key", apiKey, "--shutdown-grace", "0", "--log-level", "warn", ...args],
    1,
    { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "50" },
  );
  const url = /compute-postgres listening on (http:\/\/\S+) /.exec(command.output())?.[1] ?? "";
  return { url, command };
}

/** A search with the caller's traceparent. */
const tracedSearch = (url: string) =>
  fetch(`${url}/v1/resources/search?query=alpha`, {
    headers: { authorization: `Bearer ${apiKey}`, traceparent: `00-${traceId}-${callerSpanId}-01` },
  });

const isRequest = (span: ReceivedSpan) => span.kind === "SERVER" && span.name === "GET /v1/resources/search";
const isQuery = (span: ReceivedSpan) =>
  span.scope.name === "@opentelemetry/instrumentation-pg" &&
  span.name.startsWith("pg.query") &&
  span.traceId === traceId;

describe("compute-postgres with OTEL_* variables", () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(() => receiver.close());

  describe.skipIf(skipWithoutPostgres())("on PostgreSQL (--database-url)", () => {
    let postgres: Postgres;
    beforeAll(async () => {
      postgres = await startPostgres();
    });
    afterAll(() => postgres?.close());

    it("nests the queries' CLIENT spans under the request's SERVER span, without the key or any value", async () => {
      receiver.clear();
      const { url, command } = await startTraced(receiver, ["--database-url", postgres.url]);
      expect((await tracedSearch(url)).status).toBe(200);
      const [request] = await receiver.waitForSpans(isRequest);
      expect(request).toMatchObject({
        traceId,
        parentSpanId: callerSpanId,
        resource: { "service.name": "compute-postgres" },
        attributes: { "compute_api.operation_id": "searchResources", "http.response.status_code": 200 },
      });
      // authenticate's key lookup and the search itself, each a query of its own.
      const queries = await receiver.waitForSpans(isQuery, 10_000, 2);
      for (const query of queries)
        expect(query).toMatchObject({
          parentSpanId: request?.spanId,
          attributes: { "db.system.name": "postgresql", "db.namespace": postgres.database },
        });
      const texts = queries.map((query) => String(query.attributes["db.query.text"]));
      // authenticate's key lookup (by the key's hash, bound as $1) and the search, which ran in the request's span.
      expect(texts).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/FROM api_keys/),
          expect.stringMatching(/FROM search_documents/),
        ]),
      );
      const bytes = receiver.bytes();
      expect(bytes.includes("zqkey")).toBe(false);
      expect(bytes.includes("alpha")).toBe(false);
      command.child.kill("SIGTERM");
      expect(await command.exited).toBe(0);
    }, 360_000);
  });

  it("on PGlite, exports the request's SERVER span (PGlite does not go through pg: no query spans)", async () => {
    receiver.clear();
    const { url, command } = await startTraced(receiver, []);
    expect((await tracedSearch(url)).status).toBe(200);
    const [request] = await receiver.waitForSpans(isRequest);
    expect(request).toMatchObject({ traceId, parentSpanId: callerSpanId });
    command.child.kill("SIGTERM");
    expect(await command.exited).toBe(0);
    expect(receiver.spans.filter(isQuery)).toEqual([]);
  }, 360_000);
});
