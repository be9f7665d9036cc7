/**
 * The stub's admin API (`/__stub/…`: reset, restore, the request journal) is outside the spec and replaces a
 * backend's whole state, so the gateway never forwards it — not with `--passthrough-unknown`, not as a preflight,
 * however the path is spelled (any case, percent-encoded, with dot segments or doubled slashes).
 */
import { type ApiError, notFound, pathOf } from "@compute-api/contract";
import { normalizeTarget, removeDotSegments } from "./target.js";

/** Whether a request target is under `/__stub`, as any backend could read it. */
export function isStubAdminTarget(target: string): boolean {
  // Normalizing only removes text and decoding needs a `%`: a target with neither `__stub` nor `%` is not one
  // (the test of every request, which the full reading below made 1.3 % of the gateway's instructions).
  if (!target.includes("%") && !/__stub/i.test(target)) return false;
  const normalized = normalizeTarget(target);
  let path = pathOf(typeof normalized === "string" ? normalized : target);
  try {
    path = decodeURIComponent(path);
  } catch {
    // Not percent-decodable: read as it is.
  }
  return /^\/__stub(\/|$)/i.test(removeDotSegments(path.replace(/\/{2,}/g, "/")));
}

/** 404 in the interface's error body: the admin API is the stub's own, reached on the stub itself. */
export const stubAdminRefused = (): ApiError =>
  notFound("the stub's admin API (/__stub/) is not served through the gateway: call the stub itself");
