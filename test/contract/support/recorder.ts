/**
 * Watches every exchange of the typed client with the stub (through the `fetch` the client accepts, not a
 * mock): names the operation, checks the body against the spec's schema for that status, and records the
 * (operation, status) pair for the coverage check.
 */
import { createSchemaValidator, loadSpec } from "@compute-api/contract";

const spec = loadSpec();
const validator = createSchemaValidator(spec);

/** One documented operation: its method, path template and documented statuses. */
export interface Operation {
  operationId: string;
  method: string;
  path: string;
  pattern: RegExp;
  statuses: string[];
}

/** Every operation of the spec. */
export const operations: Operation[] = Object.entries(spec.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => method !== "parameters")
    .map(([method, op]) => {
      const { operationId, responses } = op as { operationId: string; responses: Record<string, unknown> };
      const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`);
      return { operationId, method: method.toUpperCase(), path, pattern, statuses: Object.keys(responses) };
    }),
);

/** JSON pointer to the schema of an operation's answer with that status. */
function schemaPointer(op: Operation, status: number): string {
  if (status !== 200) return "#/components/schemas/ErrorBody";
  const escaped = op.path.replaceAll("~", "~0").replaceAll("/", "~1");
  return `#/paths/${escaped}/${op.method.toLowerCase()}/responses/200/content/application~1json/schema`;
}

/** The pairs seen so far, as `operationId status`, and every problem found with an answer. */
export const seen = new Set<string>();
export const problems: string[] = [];

/** A fetch for the client that records and checks each exchange. */
export async function recordingFetch(request: Request): Promise<Response> {
  const response = await fetch(request);
  const op = operations.find((o) => o.method === request.method && o.pattern.test(new URL(request.url).pathname));
  const where = `${request.method} ${new URL(request.url).pathname} → ${response.status}`;
  if (!op) {
    problems.push(`${where}: no operation of the spec`);
    return response;
  }
  seen.add(`${op.operationId} ${response.status}`);
  if (!op.statuses.includes(String(response.status)))
    problems.push(`${where}: status not documented for ${op.operationId}`);
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  const errors = validator.validate(schemaPointer(op, response.status), body);
  if (errors.length > 0) problems.push(`${where}: ${errors.map((e) => `${e.instancePath} ${e.message}`).join("; ")}`);
  if (response.status !== 200 && (body as { code?: unknown } | undefined)?.code !== response.status) {
    problems.push(`${where}: code is not the HTTP status`);
  }
  return response;
}
