/**
 * The admin API's state endpoints, under `/__stub/`: reset, snapshot, restore and load (adminEndpoints in admin.ts
 * lists them). Each answers with the state it leaves, as `{ resourceCount, userIds }`; a snapshot is the whole state.
 * A new state is built in slices while the stub goes on serving on the old one, and replaces it at the end
 * (`changeInSlices` of the store), one at a time; a change that fails, or outlasts its request's deadline (answered
 * 504 by the server kit), changes nothing.
 */
import { type FieldViolation, internalError, invalidRequest, type OpenApiDocument } from "@compute-api/contract";
import {
  builtinFixtures,
  FixtureError,
  type Fixtures,
  generatingFixtures,
  minGenerateCount,
  validFixtures,
} from "@compute-api/fixtures";
import { signalOf } from "@compute-api/server";
import type { Request, Response } from "express";
import { unservable } from "./admin-checks.js";
import type { DataSource } from "./store/data-source.js";
import type { Store } from "./store/store.js";

/**
 * The largest `{"generate": N}` a load makes: 100,000 resources, which a stub with a 512 MB heap builds beside the
 * state it holds with room to spare (a 1.5-million set exhausted such a heap; docs/stub-server.md has the figures).
 * The command's `--generate` has no such limit: it runs once, before the stub serves.
 */
export const maxLoadGenerate = 100_000;

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
        POST: async (req, res) => {
          try {
            await store.changeInSlices({ reset: true }, signalOf(req));
          } catch (error) {
            if (signalOf(req).aborted) throw error;
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
          const restore = servable(await body(req, res), spec, "the body", "");
          await store.changeInSlices({ restore }, signalOf(req));
          res.json(summary());
        },
      },
    ],
    [
      "/load",
      {
        POST: async (req, res) => {
          await store.changeInSlices({ load: loadSource(await body(req, res), spec) }, signalOf(req));
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
function loadSource(body: unknown, spec: OpenApiDocument): DataSource {
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

/** The generator (in steps) of a `{"generate": N, "seed": S}` load, or the 400 naming what is out of range. */
function generated(
  { generate: count, seed = 1 }: { generate: unknown; seed?: unknown },
  spec: OpenApiDocument,
): DataSource {
  const violations: FieldViolation[] = [];
  if (!Number.isInteger(count) || (count as number) < minGenerateCount || (count as number) > maxLoadGenerate)
    violations.push({
      field: "body.generate",
      description: `must be a whole number from ${minGenerateCount} to ${maxLoadGenerate} (the admin API's limit; the command's --generate has none)`,
    });
  if (!Number.isInteger(seed) || (seed as number) < 0 || (seed as number) > 2 ** 32 - 1)
    violations.push({ field: "body.seed", description: "must be a whole number from 0 to 4294967295" });
  if (violations.length > 0) throw invalidRequest(violations);
  return () => generatingFixtures({ count: count as number, seed: seed as number, spec });
}
