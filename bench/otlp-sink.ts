/**
 * A minimal OTLP/HTTP trace receiver for the benchmark: answers every `POST /v1/traces` at once, as a collector
 * does, and counts the spans it got without decoding them (a walk over the protobuf's framing: resource spans →
 * scope spans → spans), so that it takes little of the CPU the gateway's run shares. `GET /count` answers
 * `{ exports, spans, bytes }`. Prints `ready <port>` on stderr.
 */
import { createServer } from "node:http";
import protobuf from "protobufjs";

const counts = { exports: 0, spans: 0, bytes: 0 };

/** The length-delimited values of field `field` of a message, each as its bytes; other fields skipped. */
function* fieldsOf(bytes: Uint8Array, field: number): Generator<Uint8Array> {
  const reader = protobuf.Reader.create(bytes);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag >>> 3 === field && (tag & 7) === 2) yield reader.bytes();
    else reader.skipType(tag & 7);
  }
}

/** The spans of an ExportTraceServiceRequest: field 1 resource_spans, its field 2 scope_spans, its field 2 spans. */
function spanCount(body: Uint8Array): number {
  let count = 0;
  for (const resourceSpans of fieldsOf(body, 1))
    for (const scopeSpans of fieldsOf(resourceSpans, 2)) for (const _ of fieldsOf(scopeSpans, 2)) count++;
  return count;
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    if (req.method === "GET" && req.url === "/count") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(counts));
    }
    const body = Buffer.concat(chunks);
    counts.exports++;
    counts.bytes += body.length;
    try {
      counts.spans += spanCount(body);
    } catch {
      // not protobuf: counted as an export, its spans unknown
    }
    // An empty ExportTraceServiceResponse: every span accepted.
    res.writeHead(200, { "content-type": "application/x-protobuf", "content-length": 0 });
    res.end();
  });
});
server.listen(0, "127.0.0.1", () => {
  process.stderr.write(`ready ${(server.address() as { port: number }).port}\n`);
});
