import { isSecretKey, REDACTED, redactText } from "../../infra/logging/redact.ts";
import { ExitCode, TidemarkError } from "../errors.ts";

/** What every HTTP error knows about the request that failed. */
export interface HttpErrorInit {
  method?: string;
  /** The full URL; stored and shown redacted. */
  url: string;
  status?: number;
  /** Number of attempts made, including the first. */
  attempts: number;
  cause?: unknown;
}

/** Base of every failure raised by HttpClient; `url` and `message` never contain secrets. */
export class HttpError extends TidemarkError {
  readonly method: string;
  readonly url: string;
  readonly status: number | undefined;
  readonly attempts: number;
  /** True when the same request may succeed later (the caller may retry the whole item). */
  readonly retryable: boolean;

  constructor(detail: string, init: HttpErrorInit, retryable: boolean) {
    const method = init.method ?? "GET";
    const url = redactText(init.url);
    const tries = init.attempts > 1 ? ` after ${init.attempts} attempts` : "";
    // Redact the whole message too: `detail` may quote a body or a low-level error text.
    super(
      redactFreeText(`${method} ${url} failed${tries}: ${detail}`),
      ExitCode.jobFailed,
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.method = method;
    this.url = url;
    this.status = init.status;
    this.attempts = init.attempts;
    this.retryable = retryable;
  }
}

/** Why a retryable request failed on its last attempt. */
export type RetryableReason = "status" | "network" | "timeout";

/** 5xx, 408, 429 without quota meaning, network error or timeout, still failing after all retries. */
export class RetryableHttpError extends HttpError {
  readonly reason: RetryableReason;
  constructor(detail: string, init: HttpErrorInit & { reason: RetryableReason }) {
    super(detail, init, true);
    this.reason = init.reason;
  }
}

/** The API's (daily) quota is exhausted: retrying before the quota resets is pointless. */
export class QuotaExceededError extends HttpError {
  /** Redacted start of the response body. */
  readonly bodyExcerpt: string;
  constructor(init: HttpErrorInit & { status: number; bodyText: string }) {
    const bodyExcerpt = redactedExcerpt(init.bodyText);
    super(`HTTP ${init.status}, quota exceeded: ${bodyExcerpt}`, init, false);
    this.bodyExcerpt = bodyExcerpt;
  }
}

/** 404: the resource does not exist (often a normal outcome the caller handles). */
export class NotFoundHttpError extends HttpError {
  constructor(init: HttpErrorInit) {
    super("HTTP 404 Not Found", { ...init, status: 404 }, false);
  }
}

/** Any other 4xx (or unexpected status): the request itself is wrong; retrying will not help. */
export class ClientHttpError extends HttpError {
  /** Redacted start of the response body. */
  readonly bodyExcerpt: string;
  constructor(init: HttpErrorInit & { status: number; bodyText: string }) {
    const bodyExcerpt = redactedExcerpt(init.bodyText);
    super(`HTTP ${init.status}: ${bodyExcerpt}`, init, false);
    this.bodyExcerpt = bodyExcerpt;
  }
}

/** How a payload was bad. */
export type BadPayloadKind = "truncated" | "invalid-json" | "schema";

/** The body was cut off, is not JSON, or does not match the expected schema. */
export class BadPayloadError extends HttpError {
  readonly kind: BadPayloadKind;
  /** One-line summary of the validation issues (`path: message; …`), empty unless kind is `schema`. */
  readonly issues: string;
  /** The first failing field's path (`items[0].id`, `(root)`), empty unless kind is `schema`. */
  readonly field: string;
  /** Redacted start of the response body. */
  readonly bodyExcerpt: string;
  constructor(
    init: HttpErrorInit & {
      kind: BadPayloadKind;
      bodyText: string;
      issues?: string;
      /** The first failing field's path; by default the path the issues start with. */
      field?: string;
      detail?: string;
    },
  ) {
    const bodyExcerpt = redactedExcerpt(init.bodyText);
    const what =
      init.kind === "schema"
        ? `response does not match the schema: ${init.issues ?? ""}`
        : init.kind === "truncated"
          ? "response body truncated"
          : `response is not valid JSON${init.detail ? ` (${init.detail})` : ""}`;
    // A cut connection may not happen again; a wrong payload will.
    super(`${what}; body: ${bodyExcerpt || "(empty)"}`, init, init.kind === "truncated");
    this.kind = init.kind;
    this.issues = init.issues ?? "";
    this.field = init.field ?? (init.kind === "schema" ? firstIssuePath(this.issues) : "");
    this.bodyExcerpt = bodyExcerpt;
  }
}

/** The path an issues line starts with (`a.b` of `a.b: message; …`), or `(root)`. */
function firstIssuePath(issues: string): string {
  const colon = issues.indexOf(": ");
  return colon > 0 ? issues.slice(0, colon) : "(root)";
}

/** The status line and headers a quota detector may look at. */
export interface ResponseHead {
  status: number;
  headers: Headers;
}

/**
 * Decides whether a 429/403 response means "quota exhausted" rather than "slow down". Each
 * API's client supplies its own (the engine has no default rule).
 */
export type QuotaErrorDetector = (response: ResponseHead, bodyText: string) => boolean;

/** A validation issue as reported by zod (only the fields the summary needs). */
export interface IssueLike {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** `items[0].volumeInfo.title` style rendering of an issue path. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out === "" ? "(root)" : out;
}

/** Validation issues on one line: `a.b: message; c[0]: message (+3 more)`. */
export function summarizeIssues(issues: readonly IssueLike[], max = 5): string {
  const shown = issues
    .slice(0, max)
    .map((i) => `${formatIssuePath(i.path)}: ${i.message.replace(/\s+/g, " ")}`);
  const more = issues.length > max ? ` (+${issues.length - max} more)` : "";
  return `${shown.join("; ")}${more}`;
}

// `"name": "value"` pairs, the value possibly cut off at the end of the excerpt.
const JSON_STRING_PAIR = /"([^"\\]{1,64})"(\s*:\s*)"((?:[^"\\]|\\.)*)("|$)/g;
// `name=value` / `name: value` outside URLs and JSON (form bodies, echoed headers, plain text).
const LOOSE_PAIR = /(^|[\s?&;,{("'])([A-Za-z][\w-]{0,63})(\s*[:=]\s*)([^\s&;,"'}\]]+)/g;

/** redactText plus secret-named JSON string fields and bare `name=value` / `name: value` pairs. */
export function redactFreeText(text: string): string {
  // redactText first: it recognises `Bearer <token>`, which the loose pairs would split.
  const jsonSafe = redactText(text).replace(
    JSON_STRING_PAIR,
    (m, name: string, colon: string, _value: string, end: string) =>
      isSecretKey(name) ? `"${name}"${colon}"${REDACTED}${end}` : m,
  );
  const pairSafe = jsonSafe.replace(
    LOOSE_PAIR,
    (m, pre: string, name: string, sep: string, value: string) =>
      isSecretKey(name) && !value.startsWith("[REDACTED") ? `${pre}${name}${sep}${REDACTED}` : m,
  );
  return pairSafe;
}

/** A short, single-line, redacted start of a body, safe for logs and error messages. */
export function redactedExcerpt(bodyText: string, max = 200): string {
  // Redact before cutting so a secret cut in half is still recognised as one.
  const redacted = redactFreeText(bodyText.slice(0, max * 4).replace(/\s+/g, " ")).trim();
  return redacted.length > max ? `${redacted.slice(0, max)}…` : redacted;
}
