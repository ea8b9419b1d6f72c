import type { ShellOptions } from "../layout.ts";
import type { Html, UiContext } from "../ui-env.ts";

/** Renders a signed-in page: the shell with navigation, CSRF token and the pending flash. */
export type PageShell = (c: UiContext, o: Pick<ShellOptions, "title" | "section" | "body">) => Html;
