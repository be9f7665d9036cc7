/**
 * Fuzz of the content codings the gateway reads itself: the caller's `Accept-Encoding` (negotiated down to what
 * it can decode) and a response's `Content-Encoding` (undone in reverse). Any value up to 16 KiB is read in time,
 * never a throw.
 */
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { expectFastTotalParser } from "../../../test/adversarial/support/header-fuzz.js";
import { decodableCodings, decodeBody, upstreamAcceptEncoding } from "../src/content-coding.js";

const body = gzipSync(JSON.stringify({ results: [] }));

describe("upstreamAcceptEncoding", () => {
  it("negotiates any Accept-Encoding in linear time, never throwing, to codings the gateway decodes or identity", () => {
    // Each value is new to the negotiation memo (which keeps 1000), so the first parse timed is the negotiation.
    expectFastTotalParser(
      upstreamAcceptEncoding,
      ["gzip", "br;q=", "deflate", "*;q=0", "identity", "q=0.5"],
      (_value, offer) => {
        if (offer !== "identity") for (const coding of offer.split(", ")) expect(decodableCodings).toContain(coding);
      },
    );
  });
});

describe("decodeBody", () => {
  it("reads any Content-Encoding in linear time, never throwing: the bytes, a violation or too large", () => {
    expectFastTotalParser(
      (encoding) => decodeBody(encoding, body, 1024 * 1024),
      ["gzip", "x-gzip", "identity", "br", "deflate"],
      (_value, decoded) => {
        expect("bytes" in decoded || "violation" in decoded || "tooLarge" in decoded).toBe(true);
      },
    );
  });
});
