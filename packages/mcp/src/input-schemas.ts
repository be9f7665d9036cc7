/**
 * Each tool's `inputSchema`, exactly as tools/list lists it, compiled once with Ajv (JSON Schema 2020-12, the
 * dialect of MCP's schemas) at start-up: every call's arguments are held to it before anything else looks at them,
 * so that a value of the wrong JSON type (a number, an array, an object, `true` or `null` where a string is
 * listed) is refused naming its field, never turned into text and sent. The Ajv instance is the contract's
 * (`createAjv`: the spec's formats and its `x-` keywords, such as the search's term limits); its errors are named
 * by the contract's one mapper (`toApiError`), as the service names them in a 400.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool
 */
import { createAjv, type FieldViolation, type OpenApiDocument, toApiError } from "@compute-api/contract";
import type { GeneratedTool } from "./derive-tools.js";

type AjvError = NonNullable<ReturnType<ReturnType<typeof createAjv>["compile"]>["errors"]>[number];

/** The violations of one call's arguments against its tool's inputSchema; empty when they conform. */
export type InputCheck = (args: Record<string, unknown>) => FieldViolation[];

/**
 * Ajv's errors in the shape of the validators' error items (express-openapi-validator's, which the contract maps):
 * the path of the argument (a missing or unknown one named at its end), the message with an enum's allowed values.
 */
function itemsOf(errors: readonly AjvError[]) {
  return errors.map((e) => {
    const params = e.params as { allowedValues?: unknown[]; missingProperty?: string; additionalProperty?: string };
    const child = params.missingProperty ?? params.additionalProperty;
    const message =
      e.keyword === "enum" && params.allowedValues
        ? `${e.message}: ${params.allowedValues.join(", ")}`
        : (e.message ?? "is invalid");
    // The arguments are the tool's one JSON object, so they are named as a request body's fields are.
    return {
      path: `/body${e.instancePath}${child === undefined ? "" : `/${child}`}`,
      message,
      errorCode: `${e.keyword}.openapi.validation`,
    };
  });
}

/** Compiles the inputSchema of every tool; throws, naming the tool, when one does not compile. */
export function compileInputSchemas(spec: OpenApiDocument, tools: readonly GeneratedTool[]): Map<string, InputCheck> {
  const ajv = createAjv(spec);
  const checks = new Map<string, InputCheck>();
  for (const { tool } of tools) {
    let validate: ReturnType<typeof ajv.compile>;
    try {
      validate = ajv.compile(tool.inputSchema);
    } catch (error) {
      throw new Error(`the inputSchema of ${tool.name} does not compile: ${(error as Error).message}`);
    }
    const known = Object.keys(tool.inputSchema.properties as Record<string, unknown>).join(", ");
    checks.set(tool.name, (args) => {
      if (validate(args)) return [];
      const refused = toApiError({ status: 400, errors: itemsOf(validate.errors ?? []) });
      return refused.details.flatMap((detail) =>
        "fieldViolations" in detail && Array.isArray(detail.fieldViolations)
          ? detail.fieldViolations.map((v) =>
              v.reason === "additionalProperties" && !v.field.includes(".")
                ? { ...v, description: `unknown argument; ${tool.name} takes ${known}` }
                : v,
            )
          : [],
      );
    });
  }
  return checks;
}

type Schema = { properties?: Record<string, unknown>; required?: unknown; items?: unknown };

/**
 * The arguments without the optional ones given as null, at every depth of the full schema: a host whose subset
 * makes every property required (OpenAI's strict mode, `--client openai`) sends null for each it leaves out, and
 * the full schema's check then holds the rest. A required one given as null stays, and is refused.
 */
export function withoutNullOptionals<T>(value: T, schema: unknown): T {
  const { properties, required, items } = (typeof schema === "object" && schema !== null ? schema : {}) as Schema;
  if (Array.isArray(value)) return value.map((item) => withoutNullOptionals(item, items)) as T;
  if (typeof value !== "object" || value === null || !properties) return value;
  const needed = Array.isArray(required) ? required : [];
  return Object.fromEntries(
    Object.entries(value)
      .filter(([name, v]) => v !== null || needed.includes(name) || !(name in properties))
      .map(([name, v]) => [name, withoutNullOptionals(v, properties[name])]),
  ) as T;
}
