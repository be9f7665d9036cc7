/**
 * Loading a data set (the stub's fixture format) into an empty database, in one transaction, under the start-up
 * advisory lock: the first process to start loads it, any other finds the data there and keeps it.
 */

import type { Fixtures } from "@compute-api/fixtures";
import {
  billingAccountName,
  clusterTotals,
  hashApiKey,
  type ProjectCollection,
  projectCollectionNames,
  projectCollections,
  projectName,
  projectResourceCounts,
  projectResourceName,
  type ResourceType,
  searchValues,
} from "@compute-api/rules";
import type { Database, Queryable, SqlValue } from "./database/database.js";
import { startupLockKey } from "./migrate.js";

/** The table of each collection of a project (their search types are the rules' `projectCollections`). */
const collectionTables = {
  clusters: "clusters",
  disks: "disks",
  images: "images",
  machines: "machines",
  networks: "networks",
  virtualMachines: "virtual_machines",
  volumes: "volumes",
} as const satisfies Record<ProjectCollection, string>;

/** Rows sent in one statement: large enough to load fast, small enough for one parameter. */
const batchSize = 20_000;

/** What load did. */
export interface LoadResult {
  /** False when the database already held data, which was kept. */
  loaded: boolean;
  /** The searchable resources in the database. */
  resources: number;
}

/** Whether the database holds data (any user). */
async function hasData(db: Queryable): Promise<boolean> {
  const [row] = await db.query<{ present: boolean }>("SELECT EXISTS (SELECT 1 FROM users) AS present");
  return row?.present === true;
}

/** Inserts rows given as JSON objects, in batches, through jsonb_to_recordset (one parameter per batch). */
async function insertRecords(tx: Queryable, sql: string, records: readonly object[]): Promise<void> {
  for (let i = 0; i < records.length; i += batchSize) {
    await tx.query(sql, [JSON.stringify(records.slice(i, i + batchSize))]);
  }
}

/** Inserts rows given as parallel arrays, in batches, through unnest. */
async function insertColumns(tx: Queryable, sql: string, columns: readonly (readonly SqlValue[])[]): Promise<void> {
  const length = columns[0]?.length ?? 0;
  for (let i = 0; i < length; i += batchSize * 5) {
    await tx.query(
      sql,
      columns.map((column) => column.slice(i, i + batchSize * 5) as SqlValue),
    );
  }
}

/**
 * Loads the data set (made by `fixtures`, called only then) when the database holds none; else keeps what is there. The data set must be valid (as the
 * stub's loadFixtures checks a file); the tables' keys and references refuse a broken one, and nothing is loaded.
 */
export async function loadData(db: Database, fixtures: () => Fixtures, now: Date = new Date()): Promise<LoadResult> {
  // Not bounded by statement_timeout or lock_timeout: a large data set takes long, and another process's start-up
  // may hold the lock for as long.
  const loaded = await db.transaction(
    async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock($1)", [startupLockKey]);
      if (await hasData(tx)) return false;
      await insertAll(tx, structuredClone(fixtures()), now);
      return true;
    },
    { bounded: false },
  );
  // Fresh statistics, so that the planner knows the sizes of what was just loaded, and the visibility map set.
  if (loaded) await db.exec("VACUUM ANALYZE");
  const [row] = await db.query<{ count: number }>("SELECT count(*)::int AS count FROM search_entries");
  return { loaded, resources: row?.count ?? 0 };
}

async function insertAll(tx: Queryable, f: Fixtures, now: Date): Promise<void> {
  await insertRecords(
    tx,
    `INSERT INTO users (id, position, email, can_create_api_keys, can_search)
     SELECT id, position, email, coalesce(can_create_api_keys, true), coalesce(can_search, true)
     FROM jsonb_to_recordset($1::jsonb)
       AS r(id text, position int, email text, can_create_api_keys boolean, can_search boolean)`,
    f.users.map((u, position) => ({
      id: u.id,
      position,
      email: u.email ?? null,
      can_create_api_keys: u.canCreateApiKeys ?? null,
      can_search: u.canSearch ?? null,
    })),
  );
  await insertRecords(
    tx,
    `INSERT INTO billing_accounts (id, spec) SELECT r->>'id', r FROM jsonb_array_elements($1::jsonb) AS r`,
    f.billingAccounts ?? [],
  );

  const counts = projectResourceCounts(f);
  for (const p of f.projects ?? []) p.resourceCount = counts.get(p.id) ?? 0;
  await insertRecords(
    tx,
    `INSERT INTO projects (id, billing_account_id, spec)
     SELECT r->>'id', r->>'billingAccountId', r FROM jsonb_array_elements($1::jsonb) AS r`,
    f.projects ?? [],
  );

  await insertRecords(
    tx,
    `INSERT INTO api_keys (user_id, key_id, sha256, create_time)
     SELECT user_id, key_id, sha256, create_time
     FROM jsonb_to_recordset($1::jsonb) AS r(user_id text, key_id text, sha256 text, create_time timestamptz)`,
    f.users.flatMap((u) =>
      (u.apiKeys ?? []).map((k) => ({
        user_id: u.id,
        key_id: k.id,
        sha256: k.sha256 ?? hashApiKey(k.key ?? ""),
        create_time: k.createTime ?? now.toISOString(),
      })),
    ),
  );
  await insertRecords(
    tx,
    `INSERT INTO user_projects (user_id, project_id)
     SELECT user_id, project_id FROM jsonb_to_recordset($1::jsonb) AS r(user_id text, project_id text)`,
    f.users.flatMap((u) => u.projectIds.map((projectId) => ({ user_id: u.id, project_id: projectId }))),
  );
  await insertRecords(
    tx,
    `INSERT INTO user_billing_accounts (user_id, billing_account_id)
     SELECT user_id, billing_account_id
     FROM jsonb_to_recordset($1::jsonb) AS r(user_id text, billing_account_id text)`,
    f.users.flatMap((u) => u.billingAccountIds.map((b) => ({ user_id: u.id, billing_account_id: b }))),
  );

  // Clusters: the totals are computed from the machines, which go to their own table.
  for (const cluster of f.clusters ?? []) {
    cluster.machines ??= [];
    Object.assign(cluster, clusterTotals(cluster.machines));
  }
  for (const collection of projectCollectionNames) {
    const resources = (f[collection] ?? []) as { projectId: string; id: string; machines?: unknown }[];
    await insertRecords(
      tx,
      `INSERT INTO ${collectionTables[collection]} (project_id, id, spec)
       SELECT r->>'projectId', r->>'id', r - 'machines' FROM jsonb_array_elements($1::jsonb) AS r`,
      resources,
    );
  }
  await insertRecords(
    tx,
    `INSERT INTO cluster_machines (project_id, id, cluster_id, position, spec)
     SELECT r->'spec'->>'projectId', r->'spec'->>'id', r->>'clusterId', (r->>'position')::int, r->'spec'
     FROM jsonb_array_elements($1::jsonb) AS r`,
    (f.clusters ?? []).flatMap((c) =>
      (c.machines ?? []).map((spec, position) => ({ clusterId: c.id, position, spec })),
    ),
  );

  await insertSearch(tx, f);
}

/** The search entries of every resource, and their values. */
async function insertSearch(tx: Queryable, f: Fixtures): Promise<void> {
  const entries: {
    entry_id: number;
    resource_type: ResourceType;
    resource_name: string;
    resource_id: string;
    project_id: string | null;
    billing_account_id: string | null;
  }[] = [];
  const values = { entryIds: [] as number[], primary: [] as boolean[], values: [] as string[] };
  const add = (
    type: ResourceType,
    name: string,
    resource: { id: string },
    access: { project?: string; billing?: string },
  ) => {
    const entryId = entries.length + 1;
    entries.push({
      entry_id: entryId,
      resource_type: type,
      resource_name: name,
      resource_id: resource.id,
      project_id: access.project ?? null,
      billing_account_id: access.billing ?? null,
    });
    const { primary, other } = searchValues(type, name, resource);
    for (const [set, isPrimary] of [
      [primary, true],
      [other, false],
    ] as const) {
      for (const value of set) {
        values.entryIds.push(entryId);
        values.primary.push(isPrimary);
        values.values.push(value);
      }
    }
  };
  for (const b of f.billingAccounts ?? []) add("billingAccount", billingAccountName(b.id), b, { billing: b.id });
  for (const p of f.projects ?? []) add("project", projectName(p.id), p, { project: p.id });
  for (const collection of projectCollectionNames) {
    for (const r of f[collection] ?? [])
      add(projectCollections[collection], projectResourceName(r.projectId, collection, r.id), r, {
        project: r.projectId,
      });
  }

  await insertRecords(
    tx,
    `INSERT INTO search_entries (entry_id, resource_type, resource_name, resource_id, project_id, billing_account_id)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(entry_id int, resource_type text, resource_name text,
       resource_id text, project_id text, billing_account_id text)`,
    entries,
  );
  await insertColumns(
    tx,
    `INSERT INTO search_values (entry_id, is_primary, value)
     SELECT * FROM unnest($1::int[], $2::boolean[], $3::text[])`,
    [values.entryIds, values.primary, values.values],
  );
}
