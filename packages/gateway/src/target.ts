/**
 * The request target the backend will see, for the requests the gateway forwards without the spec's checks
 * (`--passthrough-unknown`, preflights): the gateway decides on it rather than forward what a backend may resolve
 * to another path. An absolute-form target becomes origin-form (RFC 9112 §3.2.2), dot segments — `%2E` spelled
 * too, which RFC 3986 §2.3 makes the same as `.` — are removed (RFC 3986 §5.2.4); what is left must be a path
 * from `/`, without a fragment or a backslash.
 */
import type { ApiError } from "@compute-api/contract";
import { invalidRequestTarget } from "./gateway-errors.js";

/** 400: a request target the gateway will not forward. */
const badTarget = invalidRequestTarget;

/** Removes `.` and `..` segments from an absolute path (RFC 3986 §5.2.4); `..` above the root stays at the root. */
export function removeDotSegments(path: string): string {
  const input = path.split("/").slice(1);
  const output: string[] = [];
  input.forEach((segment, i) => {
    const last = i === input.length - 1;
    if (segment === "..") output.pop();
    if (segment === "." || segment === "..") {
      // A path that ends in a dot segment ends in a slash: `/a/b/..` is `/a/`.
      if (last) output.push("");
      return;
    }
    output.push(segment);
  });
  return `/${output.join("/")}`;
}

/** The origin-form target to forward for a request target as received, or the 400 that refuses it. */
export function normalizeTarget(target: string): string | ApiError {
  if (target.includes("#")) return badTarget("has a fragment (#), which a client never sends");
  if (target.includes("\\")) return badTarget("has a backslash, which backends read differently");
  let originForm = target;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    // Absolute-form: only the path and query go on; the Host header, not the target, names the backend.
    const at = target.indexOf("/", target.indexOf("//") + 2);
    originForm = at < 0 ? "/" : target.slice(at);
  }
  if (!originForm.startsWith("/")) return badTarget("is not a path from /");
  const queryAt = originForm.indexOf("?");
  const path = queryAt < 0 ? originForm : originForm.slice(0, queryAt);
  const query = queryAt < 0 ? "" : originForm.slice(queryAt);
  const dotted = path.replace(/%2e/gi, ".");
  if (!/(^|\/)\.\.?(\/|$)/.test(dotted)) return path + query;
  return removeDotSegments(dotted) + query;
}
