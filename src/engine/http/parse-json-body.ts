import type { z } from "zod";
import {
  BadPayloadError,
  formatIssuePath,
  type HttpErrorInit,
  summarizeIssues,
} from "./http-errors.ts";

/** Decides whether a JSON.parse failure looks like a body cut short rather than garbage. */
function looksTruncated(bodyText: string, headers: Headers, parseError: string): boolean {
  const declared = Number(headers.get("content-length"));
  if (!headers.has("content-encoding") && declared > Buffer.byteLength(bodyText)) return true;
  if (/Unexpected end of JSON input|Unterminated/.test(parseError)) return true;
  const position = /at position (\d+)/.exec(parseError)?.[1];
  return position !== undefined && Number(position) >= bodyText.trimEnd().length;
}

/**
 * Parses a JSON body and validates it with `schema`; throws BadPayloadError on any failure: a
 * body that is not the documented shape is a failure of the request (named by `init`'s method
 * and URL, secrets redacted) and of its first failing field (`field`), never "no data".
 * `fast`, when given, may return the schema's output for the parsed JSON itself (a hand-written
 * check of the common shape, cheaper than the schema); undefined lets the schema decide.
 */
export function parseJsonBody<S extends z.ZodType>(
  bodyText: string,
  headers: Headers,
  schema: S,
  init: HttpErrorInit,
  fast?: (json: unknown) => z.output<S> | undefined,
): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch (err) {
    const raw = err instanceof Error ? err.message : String(err);
    const empty = bodyText.trim() === "";
    // V8 quotes the start of the body in its message; keep only the diagnosis.
    const detail = empty ? "empty body" : raw.replace(/,?\s*".*is not valid JSON$/s, "");
    const kind = !empty && looksTruncated(bodyText, headers, raw) ? "truncated" : "invalid-json";
    throw new BadPayloadError({ ...init, kind, bodyText, detail });
  }
  const quick = fast?.(json);
  if (quick !== undefined) return quick;
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issues = summarizeIssues(parsed.error.issues);
  const field = formatIssuePath(parsed.error.issues[0]?.path ?? []);
  throw new BadPayloadError({
    ...init,
    kind: "schema",
    bodyText,
    issues,
    field,
    cause: parsed.error,
  });
}
