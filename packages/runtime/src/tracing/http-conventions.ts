/**
 * The stable HTTP semantic conventions of a span, one implementation for the gateway and the server kit: the
 * request's attributes (`http.request.method`, `url.path`, `url.scheme`, `server.address`/`server.port`,
 * `client.address`, `network.peer.address`, `user_agent.original`, `network.protocol.version`), the span's name
 * (`GET /v1/resources/search`, or the method alone for a request no route matched), the answer's
 * (`http.response.status_code`, `error.type`, the span's status), and what an error body says: its ErrorInfo
 * reason and the names of the fields it finds fault with — never a value, a query string, a header besides the
 * user agent, or a body.
 * @see https://opentelemetry.io/docs/specs/semconv/http/http-spans/
 */
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import { pathOf } from "@compute-api/contract";
import {
  type Attributes,
  type Context,
  defaultTextMapGetter,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanStatusCode,
} from "@opentelemetry/api";
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_METHOD_ORIGINAL,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PEER_ADDRESS,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
  HTTP_REQUEST_METHOD_VALUE_OTHER,
} from "@opentelemetry/semantic-conventions";

/** The operationId of the spec the request was routed to (no semantic convention names it). */
export const ATTR_OPERATION_ID = "compute_api.operation_id";
/** The ErrorInfo reason of an error answer (`INVALID_ARGUMENT`'s `reason`, such as `INVALID_QUERY`). */
export const ATTR_ERROR_REASON = "compute_api.error.reason";
/** The fields a 400 finds fault with, by name (`query`, `body.name`), never their values. */
export const ATTR_ERROR_FIELDS = "compute_api.error.fields";
/** `error.type` of a request whose client went away before its answer (nginx's 499 "client closed request"). */
export const clientClosedErrorType = "client_closed_request";

/** The methods semantic conventions name; any other is `_OTHER`, with the method itself in `…method_original`. */
const knownMethods: ReadonlySet<string> = new Set([
  "CONNECT",
  "DELETE",
  "GET",
  "HEAD",
  "OPTIONS",
  "PATCH",
  "POST",
  "PUT",
  "TRACE",
]);

/** At most this many characters of a client's own string (the user agent, an address from a header). */
const maxTextLength = 256;
/** At most this many field names on a span. */
const maxFields = 20;

/** `http.request.method`: the method if the conventions know it, else `_OTHER`. */
export const spanMethod = (method: string | undefined): string =>
  method !== undefined && knownMethods.has(method) ? method : HTTP_REQUEST_METHOD_VALUE_OTHER;

/** The name of a server or client span: `GET /v1/resources/search`; the method alone when no route matched. */
export const httpSpanName = (method: string | undefined, route: string | undefined): string => {
  const known = spanMethod(method);
  const name = known === HTTP_REQUEST_METHOD_VALUE_OTHER ? "HTTP" : known;
  return route === undefined ? name : `${name} ${route}`;
};

/** The caller's trace context (W3C `traceparent`, `tracestate`, `baggage`), through the registered propagator. */
export const callerContext = (headers: IncomingHttpHeaders): Context =>
  propagation.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);

/** `host[:port]` of a Host header, IPv6 brackets kept off the address. */
function hostAndPort(host: string): [string, number | undefined] {
  const end = host.startsWith("[") ? host.indexOf("]") + 1 : 0;
  const colon = host.indexOf(":", end);
  if (colon < 0) return [end > 0 ? host.slice(1, end - 1) : host, undefined];
  const port = Number(host.slice(colon + 1));
  return [end > 0 ? host.slice(1, end - 1) : host.slice(0, colon), Number.isInteger(port) ? port : undefined];
}

/**
 * The attributes of a SERVER span known when its request arrives. `client.address` is the first address of
 * `X-Forwarded-For` when a proxy sent one (the conventions' "original client"), else the peer's.
 */
export function serverRequestAttributes(req: IncomingMessage): Attributes {
  const method = req.method ?? "";
  const encrypted = (req.socket as TLSSocket).encrypted === true;
  const attributes: Attributes = {
    [ATTR_HTTP_REQUEST_METHOD]: spanMethod(method),
    [ATTR_URL_PATH]: pathOf(req.url ?? "/").slice(0, 2048),
    [ATTR_URL_SCHEME]: encrypted ? "https" : "http",
    [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
  };
  if (attributes[ATTR_HTTP_REQUEST_METHOD] !== method)
    attributes[ATTR_HTTP_REQUEST_METHOD_ORIGINAL] = method.slice(0, 32);
  const host = req.headers.host;
  if (host) {
    const [address, port] = hostAndPort(host.slice(0, maxTextLength));
    attributes[ATTR_SERVER_ADDRESS] = address;
    attributes[ATTR_SERVER_PORT] = port ?? (encrypted ? 443 : 80);
  }
  const peer = req.socket.remoteAddress;
  if (peer !== undefined) attributes[ATTR_NETWORK_PEER_ADDRESS] = peer;
  const forwarded = req.headers["x-forwarded-for"];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",", 1)[0]?.trim();
  const client = first ? first.slice(0, 64) : peer;
  if (client !== undefined) attributes[ATTR_CLIENT_ADDRESS] = client;
  const agent = req.headers["user-agent"];
  if (agent) attributes[ATTR_USER_AGENT_ORIGINAL] = agent.slice(0, maxTextLength);
  return attributes;
}

/** Names the span after its route template (`http.route`), once the request has been routed. */
export function setHttpRoute(span: Span, method: string | undefined, route: string): void {
  span.setAttribute(ATTR_HTTP_ROUTE, route);
  span.updateName(httpSpanName(method, route));
}

/**
 * The answer of a SERVER span: `http.response.status_code`; a 5xx sets `error.type` to the status and the span's
 * status to ERROR (a 4xx is the client's error, not the server's: status left unset, as the conventions say);
 * `undefined` (the client went away before any answer) sets `error.type` to `client_closed_request`.
 */
export function setServerResponse(span: Span, status: number | undefined): void {
  if (status === undefined) {
    span.setAttribute(ATTR_ERROR_TYPE, clientClosedErrorType);
    return;
  }
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  if (status >= 500) {
    span.setAttribute(ATTR_ERROR_TYPE, String(status));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
}

/** The `details` of an error body, as anything may hold them. */
interface DetailsLike {
  details?: unknown;
}

/**
 * What an error body (the interface's ErrorBody, or an `ApiError`) tells a trace: the ErrorInfo `reason`
 * (`compute_api.error.reason`) and the `field` of each BadRequest violation (`compute_api.error.fields`, at most
 * 20, distinct) — never a description (it may quote the request), nor a value. Anything else is ignored.
 */
export function setErrorDetails(span: Span, error: unknown): void {
  const details = (error as DetailsLike | null | undefined)?.details;
  if (!Array.isArray(details)) return;
  const fields = new Set<string>();
  for (const detail of details as unknown[]) {
    if (typeof detail !== "object" || detail === null) continue;
    const { "@type": type, reason, fieldViolations } = detail as Record<string, unknown>;
    if (typeof type !== "string") continue;
    if (type.endsWith("google.rpc.ErrorInfo") && typeof reason === "string")
      span.setAttribute(ATTR_ERROR_REASON, reason.slice(0, 64));
    else if (type.endsWith("google.rpc.BadRequest") && Array.isArray(fieldViolations))
      for (const violation of fieldViolations as unknown[]) {
        const field = (violation as { field?: unknown } | null)?.field;
        if (typeof field === "string" && fields.size < maxFields) fields.add(field.slice(0, 128));
      }
  }
  if (fields.size > 0) span.setAttribute(ATTR_ERROR_FIELDS, [...fields]);
}
