/** The Host and Origin checks of compute-mcp's HTTP transport and the stub's admin API, as a table. */
import { describe, expect, it } from "vitest";
import { hostOriginCheck, isLoopback } from "../src/host-origin.js";

describe("isLoopback", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["localhost", true],
    ["LOCALHOST", true],
    ["::1", true],
    ["[::1]", true],
    ["0:0:0:0:0:0:0:1", true],
    ["::ffff:127.0.0.1", true],
    ["0.0.0.0", false],
    ["::", false],
    ["128.0.0.1", false],
    ["localhost.evil.example", false],
    ["127.0.0.1.evil.example", false],
    ["10.0.0.1", false],
  ])("%s: %s", (host, want) => {
    expect(isLoopback(host)).toBe(want);
  });
});

describe("hostOriginCheck", () => {
  const local = hostOriginCheck({ loopback: true, allowedOrigins: ["https://app.example"] });
  const beyond = hostOriginCheck({ loopback: false, allowedOrigins: ["https://app.example"] });
  const anyOrigin = hostOriginCheck({ loopback: true, allowedOrigins: ["*"] });
  it.each([
    ["a loopback Host, no Origin (curl, a test)", local, { host: "127.0.0.1:4010" }, undefined],
    ["localhost", local, { host: "localhost:4010" }, undefined],
    ["[::1]", local, { host: "[::1]:4010" }, undefined],
    ["a rebound name (DNS rebinding)", local, { host: "attacker.example:4010" }, "host"],
    ["a name that starts like localhost", local, { host: "localhost.attacker.example" }, "host"],
    ["no Host", local, {}, "host"],
    ["a malformed Host", local, { host: "a b" }, "host"],
    ["a page of this machine", local, { host: "127.0.0.1:4010", origin: "http://localhost:5173" }, undefined],
    ["a page of another site", local, { host: "127.0.0.1:4010", origin: "https://evil.example" }, "origin"],
    ["an opaque origin (a sandboxed frame, a file)", local, { host: "127.0.0.1:4010", origin: "null" }, "origin"],
    ["an allowed origin", local, { host: "127.0.0.1:4010", origin: "https://app.example" }, undefined],
    ["* allows any origin", anyOrigin, { host: "127.0.0.1:4010", origin: "https://evil.example" }, undefined],
    ["* does not lift the Host check", anyOrigin, { host: "evil.example" }, "host"],
    ["beyond loopback: any Host", beyond, { host: "stub.internal:4010" }, undefined],
    ["beyond loopback: a loopback origin is not enough", beyond, { origin: "http://localhost:5173" }, "origin"],
    ["beyond loopback: an allowed origin", beyond, { origin: "https://app.example" }, undefined],
  ] as const)("%s", (_name, check, headers, want) => {
    expect(check(headers)).toBe(want);
  });
});
