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
    ["127.0.0.1:4010", /^the upstream URL must be an http:\/\/ or https:\/\/ URL, such as http:\/\/127\.0\.0\.1:4010/],
    ["not a url", /must be an http:\/\/ or https:\/\/ URL/],
    ["ftp://files.example", /must be an http:\/\/ or https:\/\/ URL/],
    ["http://user:pw@api.example", /must not hold a user name or password/],
    ["http://api.example/?x=1", /must not have a query/],
    ["http://api.example/v1", /ends in \/v1 .* give the origin, "http:\/\/api\.example"/],
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
