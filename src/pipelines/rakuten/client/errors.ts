import { errorBodySchema } from "./schemas.ts";

/** What an error body says, whichever host wrote it. */
export interface RakutenErrorInfo {
  /** `wrong_parameter`, `not_found`, … (old host) or the numeric code as text (new host). */
  code: string;
  message: string;
}

/** Reads either error shape; undefined when the body is neither. */
export function parseRakutenError(bodyText: string): RakutenErrorInfo | undefined {
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    return undefined;
  }
  const parsed = errorBodySchema.safeParse(json);
  if (!parsed.success) return undefined;
  const body = parsed.data;
  if ("errors" in body) {
    return {
      code: String(body.errors.errorCode ?? "error"),
      message: body.errors.errorMessage ?? "",
    };
  }
  return { code: body.error, message: body.error_description ?? "" };
}

/** Rakuten refused a request (400 wrong_parameter, 401/403 credentials, …). */
export class RakutenApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, info: RakutenErrorInfo | undefined, what: string) {
    super(`Rakuten ${what}: HTTP ${status} ${errorDetail(status, info)}`);
    this.name = "RakutenApiError";
    this.status = status;
    this.code = info?.code ?? String(status);
  }
}

/** The body's code and message; the new host's code is the status again, so it is not repeated. */
function errorDetail(status: number, info: RakutenErrorInfo | undefined): string {
  if (!info) return "no details";
  if (info.code === String(status)) return info.message || "no details";
  return info.message ? `${info.code}: ${info.message}` : info.code;
}

/** HTTP 404 / `not_found`: a failure of that one target (the run goes on). */
export class RakutenNotFoundError extends RakutenApiError {
  constructor(status: number, info: RakutenErrorInfo | undefined, what: string) {
    super(status, info, what);
    this.name = "RakutenNotFoundError";
  }
}

/** True for an answer meaning "no such thing": HTTP 404 or an error code `not_found`/404. */
export function isNotFound(status: number, info: RakutenErrorInfo | undefined): boolean {
  return status === 404 || info?.code === "not_found" || info?.code === "404";
}
