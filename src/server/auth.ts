import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { errorResponse } from "./errors.ts";

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

/** Paths answered without a token (load balancers and probes have none). */
function isPublic(method: string, path: string): boolean {
  return (method === "GET" || method === "HEAD") && path === "/healthz";
}

/**
 * Bearer-token auth for every route but `GET /healthz`. Tokens are compared as SHA-256
 * digests with `timingSafeEqual` (equal lengths, constant time), against every configured
 * token without stopping early, so timing reveals neither a token nor which one matched.
 */
export function bearerAuth(tokens: readonly string[]): MiddlewareHandler {
  if (tokens.length === 0) throw new Error("bearerAuth needs at least one token");
  const expected = tokens.map(digest);
  return async (c, next) => {
    if (isPublic(c.req.method, c.req.path)) return next();
    const header = c.req.header("authorization");
    const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!match) {
      c.header("WWW-Authenticate", 'Bearer realm="tidemark"');
      return errorResponse(
        c,
        401,
        "unauthorized",
        "missing bearer token (Authorization: Bearer <token>)",
      );
    }
    const given = digest(match[1]!);
    let ok = false;
    for (const token of expected) ok = timingSafeEqual(given, token) || ok;
    if (!ok) {
      c.header("WWW-Authenticate", 'Bearer realm="tidemark", error="invalid_token"');
      return errorResponse(c, 401, "unauthorized", "invalid bearer token");
    }
    return next();
  };
}
