/**
 * One trace from the client to the backend through a real nginx: client → nginx (which passes `traceparent` on,
 * as it passes every request header) → the real compute-gateway → the real compute-stub, both commands started
 * with the standard `OTEL_*` variables and exporting to one real OTLP/HTTP receiver. The trace joins: the
 * gateway's SERVER span continues the client's traceparent, its CLIENT span is under it, and the stub's SERVER
 * span is under that CLIENT span, all with the client's trace id; without a traceparent from the client the
 * gateway starts the trace and the stub still joins it.
 */
import { freePort } from "@compute-api/test-support";
import { type Nginx, skipWithoutNginx, startNginx } from "@compute-api/test-support/nginx";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "@compute-api/test-support/otlp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CommandProcess, killCommandProcesses, startCommandProcess } from "../production/support.js";

const apiKey = "cak_nginx-tracing-zqkey-0123456789";
const traceId = "5b8efff798038103d269b633813fc60c";
const clientSpanId = "eee19b7ec3c1b174";

/** A span of `service` (its resource's service.name) of kind `kind`. */
const of =
  (service: string, kind: ReceivedSpan["kind"], trace?: string) =>
  (span: ReceivedSpan): boolean =>
    span.resource["service.name"] === service && span.kind === kind && (trace === undefined || span.traceId === trace);

describe.skipIf(skipWithoutNginx())("a trace through nginx, the gateway and the stub", () => {
  let receiver: OtlpReceiver;
  let stub: CommandProcess;
  let nginx: Nginx;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "50" };
    stub = await startCommandProcess(
      "compute-stub",
      ["--port", "0", "--api-key", apiKey, "--log-level", "warn", "--shutdown-grace", "0"],
      1,
      otel,
    );
    const stubUrl = /compute-stub listening on (http:\/\/\S+) /.exec(stub.output())?.[1] ?? "";
    const gatewayPort = await freePort();
    await startCommandProcess(
      "compute-gateway",
      ["--upstream", stubUrl, "--port", String(gatewayPort), "--shutdown-grace", "0"],
      1,
      otel,
    );
    nginx = await startNginx(
      (port) => `
  upstream gateway {
    server 127.0.0.1:${gatewayPort};
    keepalive 8;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://gateway;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }`,
    );
  }, 360_000);
  afterAll(async () => {
    await nginx?.stop();
    killCommandProcesses();
    await receiver?.close();
  });

  const search = (headers: Record<string, string> = {}) =>
    fetch(`${nginx.url}/v1/resources/search?query=alpha`, {
      headers: { authorization: `Bearer ${apiKey}`, ...headers },
    });

  it("joins the client's trace: gateway SERVER → gateway CLIENT → stub SERVER, one trace id", async () => {
    const res = await search({ traceparent: `00-${traceId}-${clientSpanId}-01`, tracestate: "client=zq1" });
    expect(res.status).toBe(200);
    const [front] = await receiver.waitForSpans(of("compute-gateway", "SERVER", traceId), 20_000);
    const [upstream] = await receiver.waitForSpans(of("compute-gateway", "CLIENT", traceId), 20_000);
    const [backend] = await receiver.waitForSpans(of("compute-stub", "SERVER", traceId), 20_000);
    expect(front).toMatchObject({
      name: "GET /v1/resources/search",
      parentSpanId: clientSpanId,
      traceState: "client=zq1",
    });
    expect(upstream?.parentSpanId).toBe(front?.spanId);
    expect(backend).toMatchObject({
      name: "GET /v1/resources/search",
      parentSpanId: upstream?.spanId,
      attributes: { "http.response.status_code": 200, "compute_api.operation_id": "searchResources" },
    });
    expect(nginx.accessLog()).toMatch(/"GET \/v1\/resources\/search\?query=alpha HTTP\/1\.1" 200 /);
  });

  it("without the client's traceparent, the gateway starts the trace and the stub joins it", async () => {
    receiver.clear();
    expect((await search()).status).toBe(200);
    const [front] = await receiver.waitForSpans(of("compute-gateway", "SERVER"), 20_000);
    expect(front?.parentSpanId).toBe("");
    const [upstream] = await receiver.waitForSpans(of("compute-gateway", "CLIENT", front?.traceId), 20_000);
    const [backend] = await receiver.waitForSpans(of("compute-stub", "SERVER", front?.traceId), 20_000);
    expect(upstream?.parentSpanId).toBe(front?.spanId);
    expect(backend?.parentSpanId).toBe(upstream?.spanId);
    expect(receiver.bytes().includes("zqkey")).toBe(false);
  });
});
