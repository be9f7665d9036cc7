/**
 * The warm-up of a compute server's validator: express-openapi-validator compiles its schemas lazily, at the first
 * request of each operation, so one example request per operation is sent through it before the app takes traffic.
 */
import type { Server } from "node:http";
import { deref, type OpenApiDocument, parseQueryString, specOperations } from "@compute-api/contract";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import { fromValidatorError } from "./validator-errors.js";

/** A warm-up request, and the status and body its answer has (its operation's success and first example). */
interface WarmUpRequest {
  method: string;
  path: string;
  body?: unknown;
  status: number;
  response: unknown;
}

/** A value for a parameter without an example: its schema's example, default or first enum value, else a placeholder. */
function parameterValue(spec: OpenApiDocument, parameter: { example?: unknown; schema?: unknown }): string {
  if (parameter.example !== undefined) return String(parameter.example);
  const schema = deref(spec, (parameter.schema ?? {}) as Record<string, unknown> & { $ref?: string });
  const value =
    schema.example ??
    (schema.examples as unknown[] | undefined)?.[0] ??
    schema.default ??
    (schema.enum as unknown[] | undefined)?.[0];
  if (value !== undefined) return String(value);
  if (schema.type === "integer" || schema.type === "number") return String(schema.minimum ?? 1);
  return "x";
}

/** One example request per operation of the spec, built from its parameter and request body examples. */
function exampleRequests(spec: OpenApiDocument): WarmUpRequest[] {
  const out: WarmUpRequest[] = [];
  type Content = Record<string, { examples?: Record<string, { value?: unknown; $ref?: string }> }>;
  const firstExample = (content: Content | undefined): unknown => {
    const ex = Object.values(content?.["application/json"]?.examples ?? {})[0];
    return ex ? deref<{ value?: unknown }>(spec, ex).value : undefined;
  };
  for (const { path: template, method, operation, parameters, success } of specOperations(spec)) {
    const { requestBody } = operation as { requestBody?: { content?: Content } };
    let path = template;
    const query = new URLSearchParams();
    for (const p of parameters as ((typeof parameters)[number] & { required?: boolean; schema?: unknown })[]) {
      if (p.in === "path") path = path.replace(`{${p.name}}`, encodeURIComponent(parameterValue(spec, p)));
      // An optional parameter only with its example: a placeholder might not be valid.
      if (p.in === "query" && (p.required || p.example !== undefined)) query.set(p.name, parameterValue(spec, p));
    }
    const body = firstExample(requestBody?.content);
    const response = success.media
      ? (firstExample({ "application/json": success.media as Content[string] }) ?? {})
      : undefined;
    const qs = query.toString().replaceAll("+", "%20");
    out.push({
      method: method.toUpperCase(),
      path: qs ? `${path}?${qs}` : path,
      status: success.status,
      response,
      ...(body === undefined ? {} : { body }),
    });
  }
  return out;
}

/**
 * Sends each operation's example request through the validator on a private loopback server whose handler
 * answers with the spec's own example of the operation's success (nothing for a 204), so request and response validators of every operation compile
 * now. express-openapi-validator caches compiled validators in the middleware instance, which the real app
 * shares.
 */
export async function warmUp(spec: OpenApiDocument, middleware: RequestHandler[]): Promise<void> {
  const requests = exampleRequests(spec);
  const app = express();
  app.set("query parser", parseQueryString);
  app.use(middleware);
  const answer: RequestHandler = (req, res) => {
    const request = requests[Number(req.headers["x-warm-up"])];
    if (request?.response === undefined) res.status(request?.status ?? 200).end();
    else res.status(request.status).json(request.response);
  };
  app.use(answer);
  const failures: string[] = [];
  const onError: ErrorRequestHandler = (err, req, res, _next) => {
    const apiError = fromValidatorError(err, req.method);
    failures.push(`${req.method} ${req.path}: ${apiError.status} ${(err as Error).message ?? apiError.message}`);
    res.status(apiError.status).json(apiError.toBody());
  };
  app.use(onError);
  const server: Server = await new Promise((resolve) => {
    // exclusive: in a node:cluster worker, port 0 would otherwise be shared with the other workers' warm-ups.
    const s = app.listen({ port: 0, host: "127.0.0.1", exclusive: true }, () => resolve(s));
  });
  try {
    const { port } = server.address() as { port: number };
    for (const [i, r] of requests.entries()) {
      const res = await fetch(`http://127.0.0.1:${port}${r.path}`, {
        method: r.method,
        headers: {
          authorization: "Bearer warm-up",
          "x-warm-up": String(i),
          ...(r.body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(r.body === undefined ? {} : { body: JSON.stringify(r.body) }),
      });
      await res.arrayBuffer();
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  if (failures.length > 0)
    throw new Error(`the OpenAPI document does not work with the validator:\n  ${failures.join("\n  ")}`);
}
