/**
 * The checks of a stubbed answer when it is set (`POST /__stub/answers`, the MSW handlers' `answer()`): its form, the
 * operation its request match is for, and the answer against the spec — by the compiled contract of
 * @compute-api/contract, the validator the MSW handlers hold their own answers to and which the differential test
 * keeps answering as the stub's express-openapi-validator — unless the caller asks for an invalid one. Each problem
 * is a field violation named by its place in the request body (`answer.body.results`). Nothing here loads Express or
 * a Node built-in.
 */
import { ApiError, type Contract, type FieldViolation, mediaTypeOf, specOperations } from "@compute-api/contract";
import { headerName, isRecord, matchNames, type RequestMatch, readMatch, unknownNames } from "./request-match.js";

/** The answer a stubbed answer gives: a status, headers and a JSON body (or, to send a broken one, raw text). */
export interface AnswerParts {
  status: number;
  /** Headers to send, by name; the framing ones (`content-length`, `transfer-encoding`, …) are the server's. */
  headers?: Record<string, string>;
  /** The JSON body; absent: no body. */
  body?: unknown;
  /** The body as raw text instead, sent as it is (malformed JSON, an HTML error page); checked as JSON unless `invalid`. */
  bodyText?: string;
}

/** What a caller sets: which requests, what they get, its priority, and whether it may break the spec. */
export interface StubbedAnswerInput {
  /** The requests it answers: an operation (`operationId`, or `method` and an exact `path`) and what else must match. */
  request: RequestMatch;
  answer: AnswerParts;
  /** Lower wins; among equals, the newest. Default 5. */
  priority?: number;
  /** Send it even though the spec does not allow it (to test a client against a broken backend). Default false. */
  invalid?: boolean;
}

/** A stubbed answer as set: with its id, its operation and its priority. */
export interface StubbedAnswer {
  id: string;
  request: RequestMatch & { operationId: string };
  answer: AnswerParts;
  priority: number;
  invalid: boolean;
}

/** The priority of an answer that gives none (WireMock's). */
export const defaultPriority = 5;

/** Headers an answer may not set: they frame the message, which the server does. */
const framingHeaders = new Set([
  "connection",
  "content-encoding",
  "content-length",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Whether a media type is JSON, as the contract's response check reads it. */
const isJson = (type: string | undefined) => type === "application/json" || (type?.endsWith("+json") ?? false);

/** The answer's Content-Type, whatever the case of its name. */
export const contentTypeOf = (headers: Record<string, string> | undefined): string | undefined =>
  Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === "content-type")?.[1];

/** Reads an answer's parts, adding a violation for each of the wrong form. */
function readAnswer(value: unknown, violations: FieldViolation[]): AnswerParts | undefined {
  if (!isRecord(value)) {
    violations.push({
      field: "answer",
      description: "is required: an object with status, and headers and body if any",
    });
    return undefined;
  }
  violations.push(...unknownNames(value, ["status", "headers", "body", "bodyText"], "answer.", "a part of an answer"));
  const { status, headers, body, bodyText } = value;
  if (typeof status !== "number" || !Number.isInteger(status) || status < 200 || status > 599)
    violations.push({ field: "answer.status", description: "must be a status from 200 to 599" });
  const parts: AnswerParts = { status: status as number };
  if (headers !== undefined) {
    if (!isRecord(headers)) violations.push({ field: "answer.headers", description: "must map names to strings" });
    else {
      for (const [name, text] of Object.entries(headers)) {
        const field = `answer.headers.${name}`;
        if (!headerName.test(name)) violations.push({ field, description: "is not a header name" });
        else if (framingHeaders.has(name.toLowerCase()))
          violations.push({ field, description: "frames the message, which the stub does: it cannot be set" });
        // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what a header value may not hold
        else if (typeof text !== "string" || /[\u0000-\u0008\u000a-\u001f\u007f]/.test(text))
          violations.push({ field, description: "must be a string without control characters" });
      }
      parts.headers = headers as Record<string, string>;
    }
  }
  if (body !== undefined && bodyText !== undefined)
    violations.push({ field: "answer.bodyText", description: "is the body as text: give body or bodyText, not both" });
  if (bodyText !== undefined && typeof bodyText !== "string")
    violations.push({ field: "answer.bodyText", description: "must be a string" });
  if (body !== undefined) parts.body = body;
  if (bodyText !== undefined) parts.bodyText = bodyText as string;
  return parts;
}

/** The operation a match is for, checked against the spec: its id, or the one its method and exact path route to. */
function operationOf(contract: Contract, match: RequestMatch, violations: FieldViolation[]): string | undefined {
  const { operationId, method, path } = match;
  const known = contract.operations.map((operation) => operation.operationId);
  if (operationId !== undefined) {
    const operation = contract.operations.find((candidate) => candidate.operationId === operationId);
    if (!operation) {
      violations.push({
        field: "request.operationId",
        description: `is not an operation of the spec (${known.join(", ")})`,
      });
      return undefined;
    }
    if (method !== undefined && method.toUpperCase() !== operation.method)
      violations.push({ field: "request.method", description: `${operationId} is ${operation.method}` });
    if (path !== undefined && !path.includes("*")) {
      const routed = contract.route(operation.method, path);
      if (routed instanceof ApiError || routed.operation.operationId !== operationId)
        violations.push({ field: "request.path", description: `is not a path of ${operationId} (${operation.path})` });
    }
    return operationId;
  }
  if (method === undefined || path === undefined || path.includes("*")) {
    violations.push({
      field: "request.operationId",
      description: `is required unless method and an exact path name the operation (${known.join(", ")})`,
    });
    return undefined;
  }
  const routed = contract.route(method.toUpperCase(), path);
  if (routed instanceof ApiError) {
    violations.push({ field: "request.path", description: `no operation answers ${method.toUpperCase()} ${path}` });
    return undefined;
  }
  return routed.operation.operationId;
}

/** The violations of a match's query and body for what the operation takes. */
function requestViolations(contract: Contract, operationId: string, match: RequestMatch): FieldViolation[] {
  const operation = specOperations(contract.spec).find((candidate) => candidate.operation.operationId === operationId);
  const names = (operation?.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
  const violations: FieldViolation[] = Object.keys(match.query ?? {})
    .filter((name) => !names.includes(name))
    .map((name) => ({
      field: `request.query.${name}`,
      description: `is not a query parameter of ${operationId} (${names.join(", ") || "it has none"})`,
    }));
  if (match.body !== undefined && operation?.operation.requestBody === undefined)
    violations.push({ field: "request.body", description: `${operationId} takes no request body` });
  return violations;
}

/** The violations of an answer against the spec of its operation: status, Content-Type, body. */
function answerViolations(contract: Contract, operationId: string, answer: AnswerParts): FieldViolation[] {
  const type = mediaTypeOf(contentTypeOf(answer.headers));
  const hasBody = answer.body !== undefined || answer.bodyText !== undefined;
  const documented = contract.documented(operationId, answer.status);
  const violations: FieldViolation[] = [];
  if (hasBody && type !== undefined && !isJson(type))
    violations.push({ field: "answer.headers.content-type", description: `must be application/json, not ${type}` });
  let body = answer.body;
  if (answer.bodyText !== undefined && answer.bodyText !== "") {
    try {
      body = JSON.parse(answer.bodyText);
    } catch {
      violations.push({ field: "answer.bodyText", description: "is not valid JSON" });
      return documented ? violations : [...violations, statusViolation(operationId, answer.status)];
    }
  }
  const bodyField = answer.bodyText === undefined ? "answer.body" : "answer.bodyText";
  const checked = contract.checkResponseBody(operationId, answer.status, body);
  return [
    ...violations,
    ...checked.map(({ field, description }) =>
      field === "response.status"
        ? statusViolation(operationId, answer.status)
        : { field: field.replace(/^response\.body/, bodyField).replace(/^response/, "answer"), description },
    ),
  ];
}

const statusViolation = (operationId: string, status: number): FieldViolation => ({
  field: "answer.status",
  description: `${status} is not a status ${operationId} documents`,
});

/** A stubbed answer read from JSON and checked, or the violations that refuse it. */
export function checkStubbedAnswer(contract: Contract, value: unknown): StubbedAnswerInput | FieldViolation[] {
  if (!isRecord(value)) return [{ field: "/", description: "must be an object: request, answer, priority, invalid" }];
  const violations = unknownNames(
    value,
    ["request", "answer", "priority", "invalid"],
    "",
    "a part of a stubbed answer",
  );
  const { request, priority, invalid } = value;
  let match: RequestMatch = {};
  if (!isRecord(request))
    violations.push({ field: "request", description: "is required: an object with operationId and what must match" });
  else {
    violations.push(...unknownNames(request, matchNames, "request.", "a part of a request match"));
    match = readMatch(request, "request.", violations);
  }
  const answer = readAnswer(value.answer, violations);
  if (priority !== undefined && (typeof priority !== "number" || !Number.isSafeInteger(priority) || priority < 0))
    violations.push({ field: "priority", description: "must be a whole number (lower wins)" });
  if (invalid !== undefined && typeof invalid !== "boolean")
    violations.push({ field: "invalid", description: "must be true or false" });
  if (violations.length > 0 || !answer) return violations;
  const operationId = operationOf(contract, match, violations);
  if (operationId === undefined) return violations;
  violations.push(...requestViolations(contract, operationId, match));
  if (violations.length > 0) return violations;
  if (invalid !== true) {
    const broken = answerViolations(contract, operationId, answer);
    if (broken.length > 0)
      return [
        ...broken,
        {
          field: "invalid",
          description: `the spec of ${operationId} does not allow this answer; "invalid": true sends it anyway`,
        },
      ];
  }
  return {
    request: { ...match, operationId },
    answer,
    priority: (priority as number | undefined) ?? defaultPriority,
    invalid: invalid === true,
  };
}
