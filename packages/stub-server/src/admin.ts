/**
 * The stub's admin API, under `/__stub/` (outside the spec's paths, which the gateway never forwards): the state
 * (reset, snapshot, restore, load), the request journal and the fault settings, for tests that drive the stub over
 * HTTP (WireMock's `/__admin`). JSON in and out; every failure is the interface's error body. With a token, every
 * admin request must carry `Authorization: Bearer <token>`.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import {
  bearerToken,
  type FieldViolation,
  hasRequestBody,
  internalError,
  invalidRequest,
  methodNotAllowed,
  missingRequestBody,
  notFound,
  type OpenApiDocument,
  unauthenticated,
  unsupportedMediaType,
} from "@compute-api/contract";
import {
  builtinFixtures,
  FixtureError,
  type Fixtures,
  generateFixtures,
  minGenerateCount,
  validFixtures,
} from "@compute-api/fixtures";
import { jsonBodyReader } from "@compute-api/runtime";
import { type NextFunction, type Request, type RequestHandler, type Response, Router } from "express";
import { filterOf, unservable } from "./admin-checks.js";
import { changeFaults, faultSettingsOf } from "./admin-faults.js";
import type { FaultOptions, Faults } from "./faults.js";
import type { Journal } from "./journal.js";
import type { Store } from "./store/store.js";

/** Where the admin API is served. */
export const adminPrefix = "/__stub";

/** The largest body of restore and load, in bytes: a snapshot of a large data set (256 MiB). */
export const maxAdminBodyBytes = 256 * 1024 * 1024;

/** What the admin API works on. */
export interface AdminOptions {
  store: Store;
  journal: Journal;
  faults: Faults;
  spec: OpenApiDocument;
  /** When set, every admin request must send `Authorization: Bearer <token>`. */
  token?: string | undefined;
}

/** The endpoints, as `GET /__stub/` lists them. */
export const adminEndpoints = [
  ["GET", "/__stub/", "this list"],
  ["POST", "/__stub/reset", "back to the data the stub started with (or last loaded), with its start keys"],
  ["GET", "/__stub/snapshot", "the whole state as a fixture file, what --data reads (keys as SHA-256 only)"],
  ["POST", "/__stub/restore", "replace the state with a fixture file (the body), such as a snapshot"],
  [
    "POST",
    "/__stub/load",
    'replace the state and make it what reset goes back to: {"data": {…}}, {"generate": N, "seed": S} or {"builtin": true}',
  ],
  [
    "GET",
    "/__stub/requests",
    "the journal of answered requests, oldest first; filters: method, path (* wildcard), operationId, status (404, 4xx), since (a seq or an ISO time), limit",
  ],
  ["DELETE", "/__stub/requests", "empty the journal"],
  ["GET", "/__stub/faults", "the fault settings in force, in the flags' syntax"],
  [
    "PATCH",
    "/__stub/faults",
    'change some: {"faults": "503=10%", "latency": "20-200", "drop": "1%", "rateLimit": "5/s", "prefer": false, "seed": 7}; null turns one off',
  ],
  ["DELETE", "/__stub/faults", "back to the fault settings the stub started with"],
] as const;

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest();

/** The admin router, to mount before the spec's validation (it answers only under /__stub). */
export function adminRoutes({ store, journal, faults, spec, token }: AdminOptions): Router {
  const readBody = jsonBodyReader({ maxBodyBytes: maxAdminBodyBytes });
  const expected = token === undefined ? undefined : sha256(token);
  const startFaults: FaultOptions = faults.settings();
  const summary = () => {
    const { users } = store.snapshot();
    return { resourceCount: store.resourceCount, userIds: users.map((u) => u.id) };
  };
  /** The JSON body of an admin request (400, 413, 415 as the API's own); one is required. */
  const body = async (req: Request, res: Response): Promise<unknown> => {
    const { value } = await readBody(req, res);
    if (value === undefined)
      throw hasRequestBody(req.headers) ? unsupportedMediaType() : invalidRequest([missingRequestBody]);
    return value;
  };

  type Handler = (req: Request, res: Response) => unknown;
  const routes = new Map<string, Partial<Record<string, Handler>>>([
    [
      "/",
      {
        GET: (_req, res) =>
          res.json({
            endpoints: adminEndpoints.map(([method, path, description]) => ({ method, path, description })),
          }),
      },
    ],
    [
      "/reset",
      {
        POST: (_req, res) => {
          try {
            store.reset();
          } catch (error) {
            // The command's --data file is read again at each reset: it may have been changed or removed since.
            throw internalError([
              {
                field: "reset",
                description: error instanceof FixtureError ? error.message : `the data cannot be made again: ${error}`,
              },
            ]);
          }
          res.json(summary());
        },
      },
    ],
    [
      "/snapshot",
      {
        GET: (_req, res) => {
          res.type("application/json").send(`${JSON.stringify(store.snapshot(), null, 2)}\n`);
        },
      },
    ],
    [
      "/restore",
      {
        POST: async (req, res) => {
          const data = await body(req, res);
          let fixtures: Fixtures;
          try {
            fixtures = validFixtures(data, spec, "the body");
          } catch (error) {
            if (error instanceof FixtureError) throw unservable(error, "");
            throw error;
          }
          store.restore(fixtures);
          res.json(summary());
        },
      },
    ],
    [
      "/load",
      {
        POST: async (req, res) => {
          const given = (await body(req, res)) as Record<string, unknown> | null;
          const kinds = given && typeof given === "object" ? Object.keys(given).filter((k) => k !== "seed") : [];
          const kind = kinds.length === 1 ? kinds[0] : undefined;
          if (kind === "data") {
            try {
              store.load(validFixtures(given?.data, spec, "body.data"));
            } catch (error) {
              if (error instanceof FixtureError) throw unservable(error, "/data");
              throw error;
            }
          } else if (kind === "generate") {
            const { generate: count, seed = 1 } = given as { generate: unknown; seed?: unknown };
            const violations: FieldViolation[] = [];
            if (!Number.isInteger(count) || (count as number) < minGenerateCount || (count as number) > 10_000_000)
              violations.push({
                field: "body.generate",
                description: `must be a whole number from ${minGenerateCount} to 10000000`,
              });
            if (!Number.isInteger(seed) || (seed as number) < 0 || (seed as number) > 2 ** 32 - 1)
              violations.push({ field: "body.seed", description: "must be a whole number from 0 to 4294967295" });
            if (violations.length > 0) throw invalidRequest(violations);
            store.load(() => generateFixtures({ count: count as number, seed: seed as number, spec }));
          } else if (kind === "builtin" && given?.builtin === true) {
            store.load(builtinFixtures);
          } else
            throw invalidRequest([
              {
                field: "body",
                description: 'must be one of {"data": {…}}, {"generate": N, "seed": S} or {"builtin": true}',
              },
            ]);
          res.json(summary());
        },
      },
    ],
    [
      "/requests",
      {
        GET: (req, res) => {
          const filter = filterOf(req.query as Record<string, unknown>);
          if (Array.isArray(filter)) throw invalidRequest(filter);
          res.json({ requests: journal.list(filter), lastSeq: journal.lastSeq });
        },
        DELETE: (_req, res) => {
          journal.clear();
          res.json({ requests: [], lastSeq: journal.lastSeq });
        },
      },
    ],
    [
      "/faults",
      {
        GET: (_req, res) => res.json(faultSettingsOf(faults.settings())),
        PATCH: async (req, res) => {
          const changed = changeFaults(faults.settings(), await body(req, res));
          if (Array.isArray(changed)) throw invalidRequest(changed);
          faults.set(changed);
          res.json(faultSettingsOf(faults.settings()));
        },
        DELETE: (_req, res) => {
          faults.set(startFaults);
          res.json(faultSettingsOf(faults.settings()));
        },
      },
    ],
  ]);

  const handle: RequestHandler = async (req: Request, res: Response, next: NextFunction) => {
    try {
      if (expected) {
        const given = bearerToken(req);
        if (given === undefined || !timingSafeEqual(sha256(given), expected))
          throw unauthenticated("the admin API needs its token: Authorization: Bearer <admin token>");
      }
      const path = req.path === "" ? "/" : req.path;
      const methods = routes.get(path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path);
      if (!methods)
        throw notFound(
          `no admin endpoint ${req.method} ${adminPrefix}${path.slice(0, 200)}; GET ${adminPrefix}/ lists them`,
        );
      const handler = methods[req.method === "HEAD" ? "GET" : req.method];
      if (!handler) throw methodNotAllowed(req.method, Object.keys(methods).join(", "));
      await handler(req, res);
    } catch (error) {
      next(error);
    }
  };
  return Router().use(adminPrefix, handle);
}
