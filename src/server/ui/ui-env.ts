import type { Context, Hono } from "hono";
import type { HtmlEscapedString } from "hono/utils/html";
import type { Session } from "./session.ts";

/** What the auth middleware leaves for the handlers. */
export interface UiEnv {
  Variables: {
    session: Session;
    /** The session's CSRF token, put in every form. */
    csrf: string;
  };
}

/** The dashboard's Hono app. */
export type UiApp = Hono<UiEnv>;
/** A dashboard request's context. */
export type UiContext = Context<UiEnv>;
/** Escaped HTML from hono/html's `html` tag. */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;
