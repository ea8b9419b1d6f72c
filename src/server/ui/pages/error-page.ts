import { html } from "hono/html";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { NotFoundError, TidemarkError, UsageError } from "../../../engine/errors.ts";
import type { Html } from "../ui-env.ts";

/**
 * Ends a dashboard request with an error page (the shell with its navigation, so a person who
 * followed a stale link or pressed a button on an old page can go on), not a bare text line.
 */
export function uiError(status: 400 | 401 | 403 | 404 | 409, message: string): never {
  throw new HTTPException(status, { message });
}

/** The status an error thrown by a page answers with. */
export function errorStatus(err: Error): ContentfulStatusCode {
  if (err instanceof HTTPException) return err.status;
  if (err instanceof NotFoundError) return 404;
  if (err instanceof UsageError) return 400;
  return 500;
}

const HEADINGS: Partial<Record<number, string>> = {
  400: "That request is not valid",
  401: "Signed out",
  403: "Refused",
  404: "Not found",
  409: "Not possible now",
  503: "Not available now",
};

/** The page's title and body for an error; internal errors keep their message to the log. */
export function errorBody(err: Error, status: number): { title: string; body: Html } {
  const title = HEADINGS[status] ?? "Something went wrong";
  const known = err instanceof HTTPException || err instanceof TidemarkError;
  const message = known ? err.message : "internal error (see the server log)";
  return {
    title,
    body: html`<h1>${title}</h1><p class="flash error" role="alert">${message}</p><p>${
      status === 401
        ? html`<a href="/ui/sign-in">Sign in again</a>`
        : html`<a href="/ui">Back to the overview</a>`
    }</p>`,
  };
}
