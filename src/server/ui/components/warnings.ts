import { html } from "hono/html";
import type { Warning } from "../data/health-data.ts";
import type { Html } from "../ui-env.ts";

/** The banner of what looks stuck; nothing when all is well. */
export function warningsBanner(warnings: readonly Warning[]): Html | string {
  if (warnings.length === 0) return "";
  return html`<section class="banner" role="alert" aria-label="Something looks stuck">
    <strong>Something looks stuck</strong>
    <ul>${warnings.map((w) => html`<li><a href="${w.href}">${w.text}</a></li>`)}</ul>
  </section>`;
}
