/**
 * createApiKey: a new key for the caller's user. The key's id is made unique by the table's constraint, not by a
 * look before the insert, so two requests with the same id at once give one key and one 409.
 * @see openapi/paths/v1_api-keys.yaml
 */
import { apiKeyExists, createApiKeysDenied, hashApiKey, newApiKey } from "@compute-api/rules";
import type { ResponseBody } from "@compute-api/server";
import type { Principal } from "./authenticate.js";
import { type Queryable, sqlState, violatedConstraint } from "./database/database.js";

const uniqueViolation = "23505";

/** Creates the key and returns it, with its secret value, once (only its SHA-256 is kept). */
export async function createApiKey(
  db: Queryable,
  user: Principal,
  apikeyId: string,
  signal?: AbortSignal,
): Promise<ResponseBody<"createApiKey">> {
  if (!user.canCreateApiKeys) throw createApiKeysDenied();
  const key = newApiKey();
  const createTime = new Date().toISOString();
  try {
    await db.query(
      "INSERT INTO api_keys (user_id, key_id, sha256, create_time) VALUES ($1, $2, $3, $4)",
      [user.id, apikeyId, hashApiKey(key), createTime],
      signal ? { signal } : {},
    );
  } catch (error) {
    if (sqlState(error) === uniqueViolation && violatedConstraint(error) === "api_keys_user_key_id")
      throw apiKeyExists(apikeyId);
    throw error;
  }
  return { id: apikeyId, createTime, key };
}
