/**
 * What keeps a web page from driving the admin API, before anything else of an admin request is read: any page the
 * developer opens runs in a browser on the stub's machine and can send requests to 127.0.0.1. The admin API is
 * served before CORS (the server kit's `adminRoutes`), so it sends no CORS header and a browser lets no page of
 * another origin read an answer or make a request that needs a preflight. What is left to a page is a "simple"
 * request, and a Host that names the page's own site (DNS rebinding). So, as compute-mcp checks its HTTP transport
 * (`hostOriginCheck` of @compute-api/runtime):
 *
 * 1. on a loopback address, the Host must name a loopback address or `localhost`; 403 otherwise;
 * 2. an Origin, when sent, must be a loopback origin (on a loopback address) or one of `--cors-origins` (its `*`
 *    opens the interface's routes, not this API); 403 otherwise;
 * 3. a preflight is 403: the API allows no cross-origin request;
 * 4. every write (POST, PUT, PATCH, DELETE) must send `Content-Type: application/json`, which no simple request
 *    can; 415 otherwise, with or without a body.
 */
import { catalogueError, mediaTypeOf, permissionDenied } from "@compute-api/contract";
import { hostOriginCheck, isPreflight } from "@compute-api/runtime";
import type { Request } from "express";

/** Options of {@link adminGuard}. */
export interface AdminGuardOptions {
  /** Whether the stub listens on a loopback address only. */
  loopback: boolean;
  /** The stub's `--cors-origins`. */
  corsOrigins: readonly string[];
}

const writes = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The guard of the admin API: throws the interface's 403 or 415 for a request a web page may have sent. */
export function adminGuard({ loopback, corsOrigins }: AdminGuardOptions): (req: Request) => void {
  const check = hostOriginCheck({ loopback, allowedOrigins: corsOrigins.filter((origin) => origin !== "*") });
  return (req) => {
    const refused = check(req.headers);
    if (refused === "host")
      throw permissionDenied(
        "Host not allowed: the admin API answers only requests for this machine (localhost, 127.0.0.1, [::1])",
      );
    if (refused === "origin")
      throw permissionDenied(
        "Origin not allowed: the admin API answers no web page but those of this machine and of --cors-origins",
      );
    if (isPreflight(req))
      throw permissionDenied("the admin API allows no cross-origin request: call it from a test or a script");
    if (writes.has(req.method) && mediaTypeOf(req.headers["content-type"]) !== "application/json")
      throw catalogueError(
        "UNSUPPORTED_MEDIA_TYPE",
        `the admin API's ${req.method} needs Content-Type: application/json, with a body or without one`,
      );
  };
}
