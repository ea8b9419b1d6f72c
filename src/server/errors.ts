import type { Hook } from "@hono/zod-openapi";
import type { Context, Env } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { NotFoundError, TidemarkError, UsageError } from "../engine/errors.ts";
import { HttpError } from "../engine/http/http-errors.ts";
import { IdempotencyKeyReusedError } from "../engine/run-requests/request-run-once.ts";
import { formatZodIssues } from "../infra/config/format-zod-issues.ts";
import type { Logger } from "../infra/logging/logger.ts";

/** One validation problem as the API reports it. */
export interface ApiIssue {
  path: Array<string | number>;
  message: string;
  code: string;
}

/** The JSON every error answer carries. */
export function errorBody(code: string, message: string, issues?: ApiIssue[]) {
  return { error: issues ? { code, message, issues } : { code, message } };
}

/** Answers an error as JSON. */
export function errorResponse(
  c: Context,
  status: ContentfulStatusCode,
  code: string,
  message: string,
  issues?: ApiIssue[],
): Response {
  return c.json(errorBody(code, message, issues), status);
}

function toIssues(error: z.ZodError): ApiIssue[] {
  return error.issues.map((i) => ({
    path: i.path.map((p) => (typeof p === "symbol" ? String(p) : p)),
    message: i.message,
    code: i.code,
  }));
}

const WHERE: Record<string, string> = {
  json: "body",
  query: "query",
  param: "path",
  header: "headers",
  form: "form",
  cookie: "cookies",
};

/** Route validation hook: a bad body, query or path answers 400 with the zod issues. */
export const validationHook: Hook<unknown, Env, string, unknown> = (result, c) => {
  if (result.success) return;
  const where = WHERE[result.target] ?? result.target;
  const input = (result as { data?: unknown }).data;
  return errorResponse(
    c,
    400,
    "invalid_request",
    formatZodIssues(where, result.error, input),
    toIssues(result.error),
  );
};

/** Node's and Postgres's codes for a connection that could not be made or was cut. */
const UNREACHABLE = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "57P01", "57P03"]);

/** True when the error (or a cause) says a backing service could not be reached. */
function isUnreachable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (UNREACHABLE.has(code) || code.startsWith("08"))) return true;
    e = e.cause;
  }
  return false;
}

/** Maps anything a handler throws to a JSON answer (500s are logged, never detailed). */
export function errorHandler(logger: Logger) {
  return (err: Error, c: Context): Response => {
    if (err instanceof HTTPException) {
      const code =
        err.status === 400
          ? "invalid_json"
          : err.status === 415
            ? "unsupported_media_type"
            : "http_error";
      return errorResponse(c, err.status, code, err.message || "request rejected");
    }
    if (err instanceof NotFoundError) return errorResponse(c, 404, "not_found", err.message);
    if (err instanceof UsageError) return errorResponse(c, 400, "invalid_request", err.message);
    // An outside API that failed (after the client's retries) is a bad gateway, not a conflict.
    if (err instanceof HttpError) return errorResponse(c, 502, "upstream_error", err.message);
    if (err instanceof IdempotencyKeyReusedError) {
      return errorResponse(c, 422, "idempotency_key_reused", err.message);
    }
    if (err instanceof TidemarkError) return errorResponse(c, 409, "conflict", err.message);
    if (isUnreachable(err)) {
      // Not a bug: the database (or another backing service) is down; /healthz says which.
      logger.warn({ err, method: c.req.method, path: c.req.path }, "backing service unreachable");
      return errorResponse(
        c,
        503,
        "unavailable",
        "a backing service is unreachable (see /healthz)",
      );
    }
    logger.error({ err, method: c.req.method, path: c.req.path }, "http handler failed");
    return errorResponse(c, 500, "internal_error", "internal error (see the server log)");
  };
}

/** Unknown routes answer JSON too. */
export function notFoundHandler(c: Context): Response {
  return errorResponse(c, 404, "not_found", `no route for ${c.req.method} ${c.req.path}`);
}
