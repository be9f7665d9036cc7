/** The bearer form of `Authorization`, as the stub server and the gateway both read it. */

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(req: { headers: Record<string, string | string[] | undefined> }): string | undefined {
  const header = req.headers.authorization;
  const match = typeof header === "string" ? /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(header) : null;
  return match?.[1];
}
