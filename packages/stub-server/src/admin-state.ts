/**
 * The admin API's state endpoints, under `/__stub/`: reset, snapshot, restore and load (adminEndpoints in admin.ts
 * lists them). Each answers with the state it leaves, as `{ resourceCount, userIds }`; a snapshot is the whole state.
 */
import { type FieldViolation, internalError, invalidRequest, type OpenApiDocument } from "@compute-api/contract";
import {
  builtinFixtures,
  FixtureError,
  type Fixtures,
  generateFixtures,
  minGenerateCount,
  validFixtures,
} from "@compute-api/fixtures";
import type { Request, Response } from "express";
import { unservable } from "./admin-checks.js";
import type { Store } from "./store/store.js";

/** An admin endpoint's handlers by method. */
type Endpoint = Partial<Record<string, (req: Request, res: Response) => unknown>>;

/** The state endpoints by path, each with its handler by method; `body` reads a request's required JSON body. */
export function stateRoutes(
  store: Store,
  spec: OpenApiDocument,
  body: (req: Request, res: Response) => Promise<unknown>,
): [string, Endpoint][] {
  // Read from the store, never from a snapshot: a session's reset must not copy a state it shares.
  const summary = () => ({ resourceCount: store.resourceCount, userIds: store.userIds });
  return [
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
          store.restore(servable(await body(req, res), spec, "the body", ""));
          res.json(summary());
        },
      },
    ],
    [
      "/load",
      {
        POST: async (req, res) => {
          store.load(loadSource(await body(req, res), spec));
          res.json(summary());
        },
      },
    ],
  ];
}

/** A body's data set, checked against the spec: a 400 names each problem by its JSON pointer under `prefix`. */
function servable(data: unknown, spec: OpenApiDocument, name: string, prefix: string): Fixtures {
  try {
    return validFixtures(data, spec, name);
  } catch (error) {
    if (error instanceof FixtureError) throw unservable(error, prefix);
    throw error;
  }
}

/** What a load body asks for: a data set, a generated one, or the built-in one; anything else is a 400. */
function loadSource(body: unknown, spec: OpenApiDocument): Fixtures | (() => Fixtures) {
  const given = body as Record<string, unknown> | null;
  const kinds = given && typeof given === "object" ? Object.keys(given).filter((k) => k !== "seed") : [];
  const kind = kinds.length === 1 ? kinds[0] : undefined;
  if (kind === "data") return servable(given?.data, spec, "body.data", "/data");
  if (kind === "generate") return generated(given as { generate: unknown; seed?: unknown }, spec);
  if (kind === "builtin" && given?.builtin === true) return builtinFixtures;
  throw invalidRequest([
    {
      field: "body",
      description: 'must be one of {"data": {…}}, {"generate": N, "seed": S} or {"builtin": true}',
    },
  ]);
}

/** The generator of a `{"generate": N, "seed": S}` load, or the 400 naming what is out of range. */
function generated(
  { generate: count, seed = 1 }: { generate: unknown; seed?: unknown },
  spec: OpenApiDocument,
): () => Fixtures {
  const violations: FieldViolation[] = [];
  if (!Number.isInteger(count) || (count as number) < minGenerateCount || (count as number) > 10_000_000)
    violations.push({
      field: "body.generate",
      description: `must be a whole number from ${minGenerateCount} to 10000000`,
    });
  if (!Number.isInteger(seed) || (seed as number) < 0 || (seed as number) > 2 ** 32 - 1)
    violations.push({ field: "body.seed", description: "must be a whole number from 0 to 4294967295" });
  if (violations.length > 0) throw invalidRequest(violations);
  return () => generateFixtures({ count: count as number, seed: seed as number, spec });
}
