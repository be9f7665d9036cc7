/**
 * A compute server whose dependencies misbehave, over HTTP: an `authenticate` whose database is down is a 503
 * with `Retry-After` (never a 401 quoting the driver), one that refuses with anything but a principal object is a
 * 401, a handler's impossible status is a JSON 500, a request that outlives the handler timeout is a 504 and its
 * signal fires, a client that goes away fires it too, and /readyz follows the implementation's check and the drain.
 */
import { request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { catalogueError } from "@compute-api/contract";
import { captureLogs, expectErrorBody } from "@compute-api/test-support";
import { describe, expect, it } from "vitest";
import { ApiError, permissionDenied } from "../src/index.js";
import { type Caller, handlers, serve } from "./support/server.js";

const search = "/v1/resources/search?query=train";
const reasons = (body: { details?: { reason?: string }[] }) => (body.details ?? []).flatMap((d) => d.reason ?? []);

describe("authenticate that fails", () => {
  it.each([
    ["an Error carrying the database's address", new Error("connect ECONNREFUSED 127.0.0.1:55432")],
    ["a TypeError", new TypeError("Cannot read properties of undefined (reading 'rows')")],
    ["a string", "the database system is starting up"],
  ])("throwing %s is a 503 with Retry-After, the cause logged and never sent", async (_name, thrown) => {
    const { lines, logger } = captureLogs();
    const { call } = await serve({
      logger,
      authenticate: () => {
        throw thrown;
      },
    });
    const res = await call(search);
    expect(res.headers.get("retry-after")).toBe("1");
    const body = await expectErrorBody(res, 503);
    expect(reasons(body)).toEqual(["UNAVAILABLE"]);
    expect(JSON.stringify(body)).not.toMatch(/55432|ECONNREFUSED|TypeError|rows|starting up/);
    const failure = lines.find((line) => line.level === 50 && line.msg === "request failed");
    expect(JSON.stringify(failure)).toContain(String(thrown instanceof Error ? thrown.message : thrown));
    expect(JSON.stringify(lines)).not.toContain("cak_alice-key");
  });

  it("throwing an ApiError is answered as it is, its headers included", async () => {
    const limited = catalogueError("RATE_LIMIT_EXCEEDED", "too many requests for this key", { retryAfterSeconds: 7 });
    const down = catalogueError("UNAVAILABLE", "identity service down", { retryAfterSeconds: 30 });
    for (const [thrown, status, retryAfter] of [
      [limited, 429, "7"],
      [down, 503, "30"],
      [permissionDenied("this key is suspended"), 403, null],
    ] as const) {
      const { call } = await serve({
        authenticate: () => {
          throw thrown;
        },
      });
      const res = await call(search);
      expect(res.headers.get("retry-after")).toBe(retryAfter);
      expect(await expectErrorBody(res, status)).toEqual(thrown.toBody());
    }
  });

  it.each([
    ["false", false],
    ["null", null],
    ["undefined", undefined],
    ["a string", "alice"],
    ["a number", 0],
  ])("returning %s is a 401, and the handler is never called", async (_name, value) => {
    let called = false;
    const { call } = await serve({
      authenticate: () => value as unknown as Caller,
      handlers: handlers({
        searchResources: () => {
          called = true;
          return { results: [] };
        },
      }),
    });
    const body = await expectErrorBody(await call(search), 401);
    expect(reasons(body)).toEqual(["UNAUTHENTICATED"]);
    expect(called).toBe(false);
  });
});

describe("handlers that fail", () => {
  it.each([99, Number.NaN, 200, 302, 999, 4.5])(
    "an ApiError of status %s is answered 500 with the error body, never HTML or a stack",
    async (status) => {
      const { lines, logger } = captureLogs();
      const { call } = await serve({
        logger,
        handlers: handlers({
          searchResources: () => {
            throw new ApiError(status, "odd");
          },
        }),
      });
      expect(await expectErrorBody(await call(search), 500)).toEqual({ code: 500, message: "internal error" });
      expect(lines.some((line) => line.level === 50)).toBe(true);
    },
  );

  it("an ApiError whose header Node refuses is answered with its status, without the header", async () => {
    const { call } = await serve({
      handlers: handlers({
        searchResources: () => {
          throw new ApiError(503, "down", [], { "Retry-After": "1\r\nSet-Cookie: x=1" });
        },
      }),
    });
    const res = await call(search);
    expect(res.headers.get("set-cookie")).toBeNull();
    await expectErrorBody(res, 503);
  });
});

describe("bounded time", () => {
  it("a handler that never returns is answered 504 at the handler timeout, and its signal fires", async () => {
    let signal: AbortSignal | undefined;
    const { call } = await serve({
      handlerTimeoutMs: 300,
      handlers: handlers({
        searchResources: (input) => {
          signal = input.signal;
          return new Promise(() => {});
        },
      }),
    });
    const body = await expectErrorBody(await call(search), 504);
    // The deadline given, not the default 30 s: the answer names it, whatever time the machine took.
    expect(body.message).toBe("the request did not complete within 300 ms");
    expect(reasons(body)).toEqual(["DEADLINE_EXCEEDED"]);
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toMatchObject({ why: "deadline" });
  });

  it("an authenticate that never returns is answered 504 too, and a late answer is dropped", async () => {
    let release: (caller: Caller) => void = () => {};
    let called = false;
    const { call } = await serve({
      handlerTimeoutMs: 300,
      authenticate: () => new Promise<Caller>((resolve) => (release = resolve)),
      handlers: handlers({
        searchResources: () => {
          called = true;
          return { results: [] };
        },
      }),
    });
    await expectErrorBody(await call(search), 504);
    release({ userId: "alice" });
    await sleep(50);
    expect(called).toBe(false);
  });

  it("a client that goes away fires the handler's signal, and its line says 499", async () => {
    const { lines, logger } = captureLogs();
    let aborted: Promise<unknown> = Promise.resolve();
    let entered: () => void = () => {};
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const { url } = await serve({
      logger,
      handlers: handlers({
        searchResources: ({ signal }) => {
          aborted = new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason)));
          entered();
          return new Promise(() => {});
        },
      }),
    });
    const req = request(`${url}${search}`, { headers: { authorization: "Bearer cak_alice-key" } });
    req.on("error", () => {});
    req.end();
    await inHandler;
    req.destroy();
    expect(await aborted).toMatchObject({ why: "client-gone" });
    await expect
      .poll(() => lines.find((line) => line.msg?.toString().startsWith("GET /v1/resources/search")))
      .toMatchObject({
        res: { status: 499 },
      });
  });
});

describe("/readyz", () => {
  it("follows the readiness check and the drain; /healthz stays 200", async () => {
    let state: "up" | "down" | "false" = "up";
    const { server, call } = await serve({
      ready: () => {
        if (state === "down") throw new Error("connect ECONNREFUSED 127.0.0.1:55432");
        return state !== "false";
      },
    });
    expect(await (await call("/readyz")).json()).toEqual({ status: "ready" });
    for (const value of ["down", "false"] as const) {
      state = value;
      const res = await call("/readyz");
      expect(res.headers.get("retry-after")).toBe("1");
      const body = await expectErrorBody(res, 503);
      expect(reasons(body)).toEqual(["UNAVAILABLE"]);
      expect(JSON.stringify(body)).not.toContain("55432");
      expect((await call("/healthz")).status).toBe(200);
    }
    state = "up";
    server.drain();
    expect(reasons(await expectErrorBody(await call("/readyz"), 503))).toEqual(["SHUTTING_DOWN"]);
    expect((await call("/healthz")).status).toBe(200);
  });
});
