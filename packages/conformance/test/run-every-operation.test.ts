/**
 * Every operation of the spec gets valid requests, not only the three the runner has rules of its own for: a copy
 * of the spec with two operations added (a list of a project's widgets with a query parameter; a DELETE of one,
 * answering 204) is served by the real gateway, given that copy, in front of a small real backend that answers
 * the widget paths itself and sends the rest to the real stub. Answering the widgets right passes; answering 500
 * to their valid requests fails the run, and the report names the operation.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { loadSpec, type OpenApiDocument } from "@compute-api/contract";
import { createGateway, type Gateway } from "@compute-api/gateway";
import { createLogger } from "@compute-api/runtime";
import { type RunningStub, startServer } from "@compute-api/stub-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatReport } from "../src/report.js";
import { runConformance } from "../src/run.js";

const key = "cak_conformance-test-alice";
const errors = (codes: string[]) =>
  Object.fromEntries(codes.map((c) => [c, { $ref: `#/components/responses/${names[c]}` }]));
const names: Record<string, string> = {
  "500": "InternalServerError",
  "400": "BadRequest",
  "401": "Unauthorized",
  "403": "Forbidden",
  "404": "NotFound",
};
const widget = { type: "object", required: ["id"], properties: { id: { $ref: "#/components/schemas/ResourceId" } } };

/** The bundled spec with a list of widgets (GET, a query parameter) and a DELETE of one (204) added. */
function withWidgets(): OpenApiDocument {
  const spec = structuredClone(loadSpec());
  const project = { $ref: "#/components/parameters/ProjectId" };
  spec.paths["/v1/projects/{projectId}/widgets"] = {
    get: {
      operationId: "listWidgets",
      summary: "Lists the widgets of a project.",
      security: [{ bearerAuth: [] }],
      parameters: [
        project,
        { name: "pageSize", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 50 } },
      ],
      responses: {
        "200": {
          description: "The widgets.",
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["widgets"],
                properties: { widgets: { type: "array", items: widget } },
              },
            },
          },
        },
        ...errors(["400", "401", "403", "404", "500"]),
      },
    },
  };
  spec.paths["/v1/projects/{projectId}/widgets/{widgetId}"] = {
    delete: {
      operationId: "deleteWidget",
      summary: "Deletes a widget.",
      security: [{ bearerAuth: [] }],
      parameters: [
        project,
        {
          name: "widgetId",
          in: "path",
          required: true,
          schema: { $ref: "#/components/schemas/ResourceId" },
          example: "w-1",
        },
      ],
      responses: { "204": { description: "Deleted." }, ...errors(["400", "401", "403", "404"]) },
    },
  };
  return spec;
}

const spec = withWidgets();
const servers: Server[] = [];
let stub: RunningStub;
const gateways: Gateway[] = [];
/** What the widget backend was asked, by method, path and answer. */
const seen: string[] = [];

/** Listens a request listener on an ephemeral 127.0.0.1 port. */
async function serve(listener: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/**
 * A backend of the widgets, behind the gateway (which refuses broken requests): the key's widgets are answered
 * (an empty list, a 204) or, `failing`, answered 500; another key is 401; the rest goes to the stub.
 */
function widgetBackend(failing: boolean) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (!url.pathname.includes("/widgets")) {
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => k !== "host" && k !== "connection"),
      );
      const body = ["GET", "HEAD"].includes(req.method ?? "GET") ? undefined : req;
      void fetch(new URL(url.pathname + url.search, stub.url), {
        method: req.method,
        headers: headers as Record<string, string>,
        body: body as unknown as BodyInit,
        duplex: "half",
      } as RequestInit).then(async (answer) => {
        res.writeHead(answer.status, Object.fromEntries(answer.headers)).end(Buffer.from(await answer.arrayBuffer()));
      });
      return;
    }
    req.resume();
    const json = (status: number, body?: unknown) => {
      seen.push(`${req.method} ${status}`);
      if (body === undefined) return res.writeHead(status).end();
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${key}`)
      return json(401, { code: 401, message: "missing or invalid API key" });
    if (failing) return json(500, { code: 500, message: "internal error" });
    return req.method === "GET" ? json(200, { widgets: [{ id: "w-1" }] }) : json(204);
  };
}

/** The gateway, given the spec with the widgets, in front of a widget backend. */
async function widgetsUrl(failing: boolean): Promise<string> {
  const gateway = await createGateway({
    upstream: await serve(widgetBackend(failing)),
    spec,
    logger: createLogger({ level: "silent" }),
  });
  gateways.push(gateway);
  return serve(gateway.app);
}

beforeAll(async () => {
  stub = await startServer({ port: 0, host: "127.0.0.1", apiKeys: { alice: key } });
});
afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  for (const gateway of gateways) await gateway.close();
  await stub?.close();
});

const writes = { projectId: "proj-alpha", machineId: "cm-alpha-01" };
const only = ["searchResources", "listWidgets", "deleteWidget"];

describe("operations the runner has no rules of its own for", () => {
  it("a backend that answers them right passes, and their valid requests were sent", async () => {
    seen.length = 0;
    const report = await runConformance({
      baseUrl: await widgetsUrl(false),
      apiKey: key,
      spec,
      writes,
      only,
      runs: 20,
      rate: 1000,
      seed: 7,
    });
    expect(report.passed, formatReport(report, "", key)).toBe(true);
    expect(seen).toContain("GET 200");
    expect(seen).toContain("DELETE 204");
    const passed = (operationId: string) =>
      report.results.find((r) => r.check === "not_a_server_error" && r.operationId === operationId)?.passed ?? 0;
    expect(passed("listWidgets")).toBeGreaterThan(20);
    expect(passed("deleteWidget")).toBeGreaterThan(20);
  });

  it("a backend that answers 500 to a valid request fails the run, naming the operation", async () => {
    const report = await runConformance({
      baseUrl: await widgetsUrl(true),
      apiKey: key,
      spec,
      only,
      runs: 10,
      rate: 1000,
      seed: 7,
    });
    expect(report.passed).toBe(false);
    const failing = report.results.filter((r) => r.failed > 0).map((r) => `${r.check} ${r.operationId}`);
    // A documented 500 (the gateway passes it on) is still a server error.
    expect(failing).toEqual(["not_a_server_error listWidgets"]);
    expect(formatReport(report, "", key)).toMatch(
      /✗ not_a_server_error · listWidgets .*\n\s+answered 500\n\s+curl -X GET '[^']*\/v1\/projects\/[^/]+\/widgets/,
    );
  });

  it("without writes, an operation that writes gets no valid request: a DELETE is sent only broken or without a key", async () => {
    seen.length = 0;
    const report = await runConformance({
      baseUrl: await widgetsUrl(true),
      apiKey: key,
      spec,
      only: ["deleteWidget"],
      runs: 10,
      rate: 1000,
      seed: 7,
    });
    expect(seen.filter((s) => s.startsWith("DELETE")).every((s) => s === "DELETE 401")).toBe(true);
    expect(report.passed, formatReport(report, "", key)).toBe(true);
  });
});
