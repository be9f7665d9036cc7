/**
 * The spans of an OTLP trace export as the test receiver (otlp.ts) keeps them: the ReceivedSpan shape (ids in hex,
 * attributes flattened, enums by name, times as bigint) and spansOf, which reads it out of an export request in
 * protobuf's object form or in OTLP/JSON.
 */

/** The kinds of a span, by their number in the protocol. */
const spanKinds = ["UNSPECIFIED", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"] as const;
/** The codes of a span's status. */
const statusCodes = ["UNSET", "OK", "ERROR"] as const;

/** An attribute's value, flattened: a string, number, boolean, array, or object of a kvlist. */
export type AttributeValue = string | number | boolean | AttributeValue[] | { [key: string]: AttributeValue } | null;

/** A span as the receiver keeps it. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  traceState: string;
  name: string;
  kind: (typeof spanKinds)[number];
  attributes: Record<string, AttributeValue>;
  status: { code: (typeof statusCodes)[number]; message: string };
  events: { name: string; attributes: Record<string, AttributeValue> }[];
  links: { traceId: string; spanId: string; attributes: Record<string, AttributeValue> }[];
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  /** The attributes of the span's resource (`service.name`, …). */
  resource: Record<string, AttributeValue>;
  scope: { name: string; version: string };
  /** The encoding it came in. */
  protocol: "http/protobuf" | "http/json";
}

/** Lowercase hex of an id: bytes (protobuf), base64 or hex (JSON). */
function hexId(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString("hex");
  if (typeof value !== "string" || value === "") return "";
  // OTLP/JSON sends ids as hex (the specification's exception to proto3's base64 for bytes).
  if (/^[0-9a-fA-F]+$/.test(value) && (value.length === 32 || value.length === 16)) return value.toLowerCase();
  return Buffer.from(value, "base64").toString("hex");
}

/** An AnyValue, in protobuf's object form or OTLP/JSON's (camelCase either way). */
function anyValue(value: Record<string, unknown> | null | undefined): AttributeValue {
  if (!value) return null;
  if ("stringValue" in value) return String(value.stringValue);
  if ("boolValue" in value) return Boolean(value.boolValue);
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return Number(value.doubleValue);
  if ("arrayValue" in value)
    return ((value.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(anyValue);
  if ("kvlistValue" in value)
    return keyValues((value.kvlistValue as { values?: Record<string, unknown>[] }).values) as AttributeValue;
  if ("bytesValue" in value) return hexId(value.bytesValue);
  return null;
}

/** KeyValue pairs as an object. */
function keyValues(pairs: unknown): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const pair of (pairs as { key: string; value?: Record<string, unknown> }[] | undefined) ?? [])
    attributes[pair.key] = anyValue(pair.value);
  return attributes;
}

/** An enum's name from its number (protobuf) or its number or name (JSON). */
function enumName<Name extends string>(names: readonly Name[], value: unknown, prefix: string): Name {
  const name = typeof value === "string" ? value.replace(prefix, "") : names[Number(value ?? 0)];
  return names.find((known) => known === name) ?? (names[0] as Name);
}

/** A 64-bit time: a Long (protobuf), a number or a string (JSON). */
const nanos = (value: unknown): bigint => BigInt(String(value ?? 0));

/** The spans of an export request (protobuf's object form with longs as strings, or OTLP/JSON). */
export function spansOf(request: Record<string, unknown>, protocol: ReceivedSpan["protocol"]): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of (request.resourceSpans as Record<string, unknown>[] | undefined) ?? []) {
    const resource = keyValues((resourceSpans.resource as { attributes?: unknown } | undefined)?.attributes);
    for (const scopeSpans of (resourceSpans.scopeSpans as Record<string, unknown>[] | undefined) ?? []) {
      const scope = (scopeSpans.scope as { name?: string; version?: string } | undefined) ?? {};
      for (const span of (scopeSpans.spans as Record<string, unknown>[] | undefined) ?? []) {
        const status = (span.status as { code?: unknown; message?: string } | undefined) ?? {};
        spans.push({
          traceId: hexId(span.traceId),
          spanId: hexId(span.spanId),
          parentSpanId: hexId(span.parentSpanId),
          traceState: String(span.traceState ?? ""),
          name: String(span.name ?? ""),
          kind: enumName(spanKinds, span.kind, "SPAN_KIND_"),
          attributes: keyValues(span.attributes),
          status: { code: enumName(statusCodes, status.code, "STATUS_CODE_"), message: status.message ?? "" },
          events: ((span.events as Record<string, unknown>[] | undefined) ?? []).map((event) => ({
            name: String(event.name ?? ""),
            attributes: keyValues(event.attributes),
          })),
          links: ((span.links as Record<string, unknown>[] | undefined) ?? []).map((link) => ({
            traceId: hexId(link.traceId),
            spanId: hexId(link.spanId),
            attributes: keyValues(link.attributes),
          })),
          startTimeUnixNano: nanos(span.startTimeUnixNano),
          endTimeUnixNano: nanos(span.endTimeUnixNano),
          resource,
          scope: { name: scope.name ?? "", version: scope.version ?? "" },
          protocol,
        });
      }
    }
  }
  return spans;
}
