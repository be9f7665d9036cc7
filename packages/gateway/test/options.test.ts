import { describe, expect, it } from "vitest";
import { defaults, parseUpstreamUrl } from "../src/options.js";

describe("parseUpstreamUrl", () => {
  it.each([
    ["http://127.0.0.1:4010", "http://127.0.0.1:4010/"],
    ["https://api.example/base/", "https://api.example/base/"],
  ])("accepts %s", (given, want) => {
    expect(parseUpstreamUrl(given).href).toBe(want);
  });

  it.each([
    [undefined, /is required/],
    ["", /is required/],
    ["127.0.0.1:4010", /is not a URL/],
    ["not a url", /is not a URL/],
    ["ftp://files.example", /scheme must be http or https/],
    ["http://user:pw@api.example", /must not carry credentials/],
    ["http://api.example/?x=1", /must not have a query/],
  ])("refuses %j", (given, message) => {
    expect(() => parseUpstreamUrl(given)).toThrow(message);
  });
});

describe("defaults", () => {
  it("has one for every optional setting, the logger's silent as the stub's", () => {
    expect(defaults).toEqual({
      responseValidation: "enforce",
      timeoutMs: 30_000,
      maxBodyBytes: 1024 * 1024,
      maxResponseBytes: 8 * 1024 * 1024,
      passthroughUnknown: false,
      connections: 128,
      upstreamKeepAliveTimeoutMs: 1000,
      requestTimeoutMs: 30_000,
      logLevel: "silent",
      collectDefaultMetrics: false,
      shutdownGraceMs: 10_000,
      shutdownTimeoutMs: 30_000,
    });
  });
});
