/**
 * The operations of the bundled spec, as the contract walks them (`specOperations`), as request shapes: path and
 * query parameters and the JSON body, each with the pointer of its schema, so that arbitraries and Ajv can be
 * had for it by pointer.
 * @see https://spec.openapis.org/oas/v3.1.0#operation-object
 */
import { type OpenApiDocument, pointerToken, specOperations } from "@compute-api/contract";

/** A parameter and the pointer of its schema. */
export interface ParameterShape {
  name: string;
  required: boolean;
  schema: string;
}

/** What a request of one operation is made of. */
export interface OperationShape {
  operationId: string;
  method: string;
  /** The path template, such as `/v1/projects/{projectId}/cluster-machines/{id}`. */
  template: string;
  path: ParameterShape[];
  query: ParameterShape[];
  /** Header parameters, besides Accept, Content-Type and Authorization (which OpenAPI says are ignored there). */
  header: ParameterShape[];
  /** Pointer of the JSON request body's schema, if the operation takes a body. */
  body?: string;
  /** Pointer of the 200 response body's schema. */
  response: string;
}

/** Header parameters OpenAPI ignores: the request's media types and its credentials say them. */
const ignoredHeaders = new Set(["accept", "content-type", "authorization"]);

type Listed = { $ref?: string }[] | undefined;

/** The resource types search knows: the discriminator mapping of `SearchResult`. */
export function searchResourceTypes(spec: OpenApiDocument): string[] {
  const schemas = spec.components.schemas as Record<string, { discriminator?: { mapping?: Record<string, string> } }>;
  return Object.keys(schemas.SearchResult?.discriminator?.mapping ?? {});
}

/** Every operation of the document by operationId. */
export function operationShapes(spec: OpenApiDocument): Map<string, OperationShape> {
  const out = new Map<string, OperationShape>();
  for (const { path: template, method, operation, parameters } of specOperations(spec)) {
    const itemPointer = `#/paths/${pointerToken(template)}`;
    const opPointer = `${itemPointer}/${method}`;
    // Where each parameter is written, in the order specOperations lists them (the path item's, then the
    // operation's): a referenced one at its component, so that its schema has one pointer wherever it is used.
    const at = (list: Listed, pointer: string) => (list ?? []).map((p, i) => p.$ref ?? `${pointer}/parameters/${i}`);
    const pointers = [
      ...at(spec.paths[template]?.parameters as Listed, itemPointer),
      ...at(operation.parameters as Listed, opPointer),
    ];
    const listed = parameters.map((p, i) => ({ p: p as typeof p & { required?: boolean }, at: pointers[i] }));
    const shape = (location: string) =>
      listed
        .filter(({ p }) => p.in === location)
        .map(({ p, at }) => ({ name: p.name, required: p.required === true, schema: `${at}/schema` }));
    const requestBody = operation.requestBody as { content?: Record<string, unknown> } | undefined;
    const operationId = String(operation.operationId);
    out.set(operationId, {
      operationId,
      method: method.toUpperCase(),
      template,
      path: shape("path"),
      query: shape("query"),
      header: shape("header").filter((p) => !ignoredHeaders.has(p.name.toLowerCase())),
      ...(requestBody?.content?.["application/json"]
        ? { body: `${opPointer}/requestBody/content/application~1json/schema` }
        : {}),
      response: `${opPointer}/responses/200/content/application~1json/schema`,
    });
  }
  return out;
}
