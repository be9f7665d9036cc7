/**
 * The keys a start registers: those given from outside (`--api-key`, `apiKeys`), which replace the user's key
 * `default`; and, when none is given, a new key for the data's first user only if that user has no key `default`
 * yet. So replicas started on one database never revoke each other's key: the first start's printed key stays
 * until a key is given on purpose.
 */
import { defaultKeyId } from "@compute-api/fixtures";
import { hashApiKey, newApiKey } from "@compute-api/rules";
import type { Database, Queryable } from "./database/database.js";

/**
 * Gives a user a key chosen from outside under `keyId` (the stub's `default`), replacing the key the user had
 * under that id, and taking the key from any other user who had it (a key acts for one user: the last given).
 * Throws when the user does not exist.
 */
export async function registerApiKey(db: Database, userId: string, keyId: string, key: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [user] = await tx.query("SELECT 1 FROM users WHERE id = $1", [userId]);
    if (!user) throw new Error(`apiKeys: no user '${userId}' in the data`);
    const sha256 = hashApiKey(key);
    await tx.query("DELETE FROM api_keys WHERE sha256 = $1 AND (user_id, key_id) <> ($2, $3)", [sha256, userId, keyId]);
    await tx.query(
      `INSERT INTO api_keys (user_id, key_id, sha256, create_time) VALUES ($1, $2, $3, now())
       ON CONFLICT ON CONSTRAINT api_keys_user_key_id DO UPDATE SET sha256 = excluded.sha256, create_time = now()`,
      [userId, keyId, sha256],
    );
  });
}

/** The first user of the data (who gets the key of `--api-key`), if any. */
export async function firstUser(db: Queryable): Promise<string | undefined> {
  const [row] = await db.query<{ id: string }>("SELECT id FROM users ORDER BY position LIMIT 1");
  return row?.id;
}

/** The first user's key after start-up: `given` (registered), `new` (made and registered), or `kept` (the one there). */
export type FirstKey =
  | { user: string; outcome: "given" | "new"; key: string }
  | { user: string; outcome: "kept"; key?: undefined };

/**
 * Registers the first user's key `default`: the key given, replacing the one there; else a new key, only when the
 * user has none (an insert that does nothing on conflict, so that two replicas starting at once register one).
 * Undefined when the data has no user.
 */
export async function registerFirstKey(db: Database, given?: string): Promise<FirstKey | undefined> {
  const user = await firstUser(db);
  if (user === undefined) return undefined;
  if (given !== undefined) {
    await registerApiKey(db, user, defaultKeyId, given);
    return { user, outcome: "given", key: given };
  }
  const key = newApiKey();
  const inserted = await db.query(
    `INSERT INTO api_keys (user_id, key_id, sha256, create_time) VALUES ($1, $2, $3, now())
     ON CONFLICT ON CONSTRAINT api_keys_user_key_id DO NOTHING RETURNING 1`,
    [user, defaultKeyId, hashApiKey(key)],
  );
  return inserted.length > 0 ? { user, outcome: "new", key } : { user, outcome: "kept" };
}
