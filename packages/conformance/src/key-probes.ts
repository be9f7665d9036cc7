/**
 * What createApiKey's description states, with writes: the key is named by its `apikeyId`, a second key with the
 * same `apikeyId` is 409 with ErrorInfo reason `ALREADY_EXISTS` and never shows the secret again
 * (api_key_uniqueness), and the new key is usable at once, with its user's access (api_key_usable). The probe
 * creates one key of the run's prefix; the report never shows its secret.
 * @see openapi/paths/v1_api-keys.yaml
 */
import type { ErrorBody } from "@compute-api/contract";
import type { Access, Verdicts } from "./checks.js";
import type { Answer, RawRequest } from "./http.js";
import type { Exchange } from "./pacing.js";

/** api_key_uniqueness on the answer to a creation of `apikeyId`: a 200 names the key by it, a 409 says ALREADY_EXISTS. */
export function keyCreationVerdict(apikeyId: string, answer: Answer): string | null | undefined {
  if (answer.status === 200) {
    const id = (answer.json as { id?: unknown } | undefined)?.id;
    return id === apikeyId ? null : `the key created for apikeyId ${apikeyId} has id ${JSON.stringify(id)}`;
  }
  if (answer.status !== 409) return undefined;
  const reasons = ((answer.json as ErrorBody | undefined)?.details ?? []).flatMap((d) =>
    d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo" && "reason" in d ? [String(d.reason)] : [],
  );
  return reasons.includes("ALREADY_EXISTS")
    ? null
    : `the 409 for apikeyId ${apikeyId} has ErrorInfo reasons ${JSON.stringify(reasons)}, not ALREADY_EXISTS`;
}

/** What the key probe is given. */
export interface KeyProbeContext {
  exchange: Exchange;
  /** A creation of a key with this id, with the run's key. */
  create(apikeyId: string): RawRequest;
  /** A search with the run's key. */
  search(query: string): RawRequest;
  /** The id of the key to create, of the run's prefix. */
  apikeyId: string;
  /** What the run's key sees, when it could be learned. */
  access: Access | undefined;
  judge(operationId: string, answer: Answer): Verdicts;
  record(operationId: string, request: RawRequest, verdicts: Verdicts): void;
}

const projectsOf = (answer: Answer) =>
  ((answer.json as { results?: { resourceName?: unknown }[] } | undefined)?.results ?? []).map((r) =>
    String(r.resourceName).replace(/^projects\//, ""),
  );

/** Creates a key, creates it again, and searches with it. */
export async function probeKeys(ctx: KeyProbeContext): Promise<void> {
  const { exchange, apikeyId } = ctx;
  const request = ctx.create(apikeyId);
  const first = await exchange("createApiKey", request);
  const created = first.status === 200 ? keyCreationVerdict(apikeyId, first) : `answered ${first.status}, not 200`;
  ctx.record("createApiKey", request, {
    ...ctx.judge("createApiKey", first),
    api_key_uniqueness: created === null ? null : `a new apikeyId ${apikeyId}: ${created}`,
  });
  const key = (first.json as { key?: unknown } | undefined)?.key;
  if (first.status !== 200 || typeof key !== "string") return;
  const again = await exchange("createApiKey", request);
  const conflict =
    again.status === 409
      ? (keyCreationVerdict(apikeyId, again) ?? null)
      : `the same apikeyId ${apikeyId} again answered ${again.status}, not 409`;
  ctx.record("createApiKey", request, {
    ...ctx.judge("createApiKey", again),
    api_key_uniqueness: again.text.includes(key) ? "the answer to the same apikeyId again shows the key" : conflict,
  });
  // The search with the new key, as the report shows it: the secret written as $NEW_KEY.
  const search = ctx.search("type:project");
  const shown = { ...search, headers: { ...search.headers, authorization: "Bearer $NEW_KEY" } };
  const answer = await exchange("searchResources", {
    ...search,
    headers: { ...search.headers, authorization: `Bearer ${key}` },
  });
  let usable: string | null =
    answer.status === 200 ? null : `a search with the new key answered ${answer.status}, not 200`;
  if (usable === null && ctx.access?.complete) {
    const seen = projectsOf(answer).sort();
    const want = [...ctx.access.projects].sort();
    if (seen.join() !== want.join())
      usable = `the new key sees the projects ${JSON.stringify(seen)}, its user's key ${JSON.stringify(want)}`;
  }
  ctx.record("createApiKey", shown, { api_key_usable: usable });
}
