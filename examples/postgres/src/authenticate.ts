/** Who a request acts for: the user of the API key, looked up by the key's SHA-256 (the only form kept). */
import { hashApiKey } from "@compute-api/rules";
import type { Queryable } from "./database/database.js";

/** The user a request acts for, as its key resolved it. */
export interface Principal {
  readonly id: string;
  readonly canCreateApiKeys: boolean;
  readonly canSearch: boolean;
}

/**
 * The user of a key, or undefined (answered 401) for a key the database does not hold. A database that fails
 * rejects with its 503 or 504 (database-errors.ts), never a 401: a key is refused only when the database says so.
 */
export async function authenticate(db: Queryable, token: string, signal?: AbortSignal): Promise<Principal | undefined> {
  const [row] = await db.query<{ id: string; can_create_api_keys: boolean; can_search: boolean }>(
    `SELECT u.id, u.can_create_api_keys, u.can_search
     FROM api_keys k JOIN users u ON u.id = k.user_id
     WHERE k.sha256 = $1`,
    [hashApiKey(token)],
    signal ? { signal } : {},
  );
  return row && { id: row.id, canCreateApiKeys: row.can_create_api_keys, canSearch: row.can_search };
}
