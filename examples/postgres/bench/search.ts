/**
 * Search latency of the SQL search, in process (no HTTP): loads the built-in data and a generated data set
 * (100,000 resources by default) into PGlite in memory — or into the PostgreSQL of `--database-url` /
 * COMPUTE_POSTGRES_DATABASE_URL, which must be empty, one data set per run (`--data builtin` or `--data generated`) — and times a
 * mix of queries (bench/search.ts's, for the stub) as the user who can access everything, and on the generated data
 * the costliest searches a client can send (costly-queries.ts). Prints the load time and, per query, p50 and p90
 * in ms over `--runs` runs; then how long a cheap search takes sent beside the costliest one.
 *
 *   npm run bench -w examples/postgres [-- --count 100000 --runs 20 --data both|builtin|generated]
 *   npm run bench -w examples/postgres -- --database-url postgres://…/empty --data generated
 */
import { parseArgs } from "node:util";
import { builtinFixtures, type Fixtures, generateFixtures } from "@compute-api/fixtures";
import { searchMix } from "../../../bench/search-mix.js";
import type { Principal } from "../src/authenticate.js";
import type { Database } from "../src/database/database.js";
import { createPostgresServer } from "../src/index.js";
import { searchResources } from "../src/search-resources.js";
import { cheapQuery, costlyQueries } from "./costly-queries.js";

const { values } = parseArgs({
  options: {
    count: { type: "string", default: "100000" },
    runs: { type: "string", default: "20" },
    "database-url": { type: "string", default: process.env.COMPUTE_POSTGRES_DATABASE_URL ?? "" },
    data: { type: "string", default: "both" },
  },
});
const runs = Number(values.runs);
const databaseUrl = values["database-url"] || undefined;
const alice: Principal = { id: "alice", canCreateApiKeys: true, canSearch: true };

/** The value at quantile q of sorted samples. */
const quantile = (sorted: number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

/** A search's time in ms. */
async function timed(db: Database, query: string): Promise<number> {
  const started = performance.now();
  await searchResources(db, alice, query);
  return performance.now() - started;
}

/** p50 and p90 of the cheap search sent while the query runs (PGlite: after it, one statement at a time). */
async function beside(db: Database, label: string, query: string): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const costly = timed(db, query);
    times.push(await timed(db, cheapQuery));
    await costly;
  }
  times.sort((a, b) => a - b);
  console.log(
    `| \`${cheapQuery}\` beside ${label} | | ${quantile(times, 0.5).toFixed(1)} | ${quantile(times, 0.9).toFixed(1)} |`,
  );
}

/** Times each query `runs` times after 2 warm-up runs and prints its row; returns the samples of each, sorted. */
async function timeQueries(db: Database, queries: [string, string][]): Promise<number[][]> {
  const samples: number[][] = [];
  for (const [label, query] of queries) {
    const times: number[] = [];
    let results = 0;
    for (let i = 0; i < runs + 2; i++) {
      const t = performance.now();
      results = (await searchResources(db, alice, query)).results.length;
      // The first two runs warm the caches and plans up.
      if (i >= 2) times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    samples.push(times);
    console.log(
      `| ${label} \`${query}\` | ${results} | ${quantile(times, 0.5).toFixed(1)} | ${quantile(times, 0.9).toFixed(1)} |`,
    );
  }
  return samples;
}

async function bench(name: string, fixtures: Fixtures, queries: [string, string][], costly: [string, string][] = []) {
  const started = performance.now();
  const server = await createPostgresServer({ fixtures, ...(databaseUrl ? { databaseUrl } : {}) });
  const loadSeconds = (performance.now() - started) / 1000;
  console.log(`\n${name} on ${server.database.description}: started and loaded in ${loadSeconds.toFixed(1)} s`);
  console.log("| query | results | p50 ms | p90 ms |\n|---|---|---|---|");
  try {
    const all = (await timeQueries(server.database, queries)).flat().sort((a, b) => a - b);
    console.log(`| **all queries** | | **${quantile(all, 0.5).toFixed(1)}** | **${quantile(all, 0.9).toFixed(1)}** |`);
    if (costly.length === 0) return;
    const p50s = (await timeQueries(server.database, costly)).map((times) => quantile(times, 0.5));
    const [label, query] = costly[p50s.indexOf(Math.max(...p50s))] ?? ["", ""];
    await beside(server.database, label, query);
  } finally {
    await server.close();
  }
}

if (databaseUrl && values.data === "both")
  throw new Error("with a database URL, choose one data set: --data builtin or --data generated");
if (values.data !== "generated") {
  const builtin = builtinFixtures();
  await bench("built-in data (59 resources)", builtin, searchMix(builtin));
}
if (values.data !== "builtin") {
  const generated = generateFixtures({ count: Number(values.count) });
  await bench(
    `generated data (${Number(values.count).toLocaleString("en")} resources)`,
    generated,
    searchMix(generated),
    costlyQueries,
  );
}
