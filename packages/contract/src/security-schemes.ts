/**
 * The security schemes the compiled contract checks: HTTP bearer and an API key in a header. Each requirement of
 * an operation compiles, at start-up, into one check; the first problem of a request is named, in the words
 * express-openapi-validator uses, which the stub answers with.
 * @see https://spec.openapis.org/oas/v3.1.0#security-scheme-object
 */
import type { IncomingHttpHeaders } from "node:http";
import { bearerToken } from "./bearer.js";

/** A Security Requirement Object: scheme name → scopes. */
export type SecurityRequirement = Record<string, string[]>;
/** The parts of a Security Scheme Object the contract reads. */
export type SecurityScheme = { type?: string; scheme?: string; in?: string; name?: string };

/** One way to pass a security requirement: each of its schemes checked, the first problem named. */
export type SecurityCheck = (headers: IncomingHttpHeaders) => string | undefined;

/** The check of one security requirement (all its schemes); throws, naming `where`, for a scheme it cannot check. */
export function securityCheck(
  requirement: SecurityRequirement,
  schemes: Record<string, SecurityScheme>,
  where: string,
): SecurityCheck {
  const checks = Object.keys(requirement).map((name): SecurityCheck => {
    const scheme = schemes[name];
    if (scheme?.type === "http" && scheme.scheme?.toLowerCase() === "bearer") {
      return (headers) => {
        const header = headers.authorization;
        if (!header) return "Authorization header required";
        if (!header.toLowerCase().includes("bearer")) return "Authorization header with scheme 'Bearer' required";
        return bearerToken({ headers }) === undefined ? "Authorization header must be `Bearer <API key>`" : undefined;
      };
    }
    if (scheme?.type === "apiKey" && scheme.in === "header" && scheme.name) {
      const header = scheme.name.toLowerCase();
      return (headers) => (headers[header] ? undefined : `'${scheme.name}' header required`);
    }
    throw new Error(
      `${where}: the security scheme '${name}' is not supported by the compiled contract (http bearer and apiKey in a header are)`,
    );
  });
  return (headers) => {
    for (const check of checks) {
      const problem = check(headers);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
}
