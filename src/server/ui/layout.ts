import { html } from "hono/html";
import { assetUrl } from "./assets/serve-assets.ts";
import type { Html } from "./ui-env.ts";

/** Top-level sections, for the navigation bar. */
export type Section = "overview" | "runs" | "queue" | `pipeline:${string}`;

/** What every page shell shows. */
export interface ShellOptions {
  title: string;
  section?: Section;
  /** Pipelines with a panel, for the navigation. */
  panels: ReadonlyArray<{ name: string; title: string }>;
  /** The session's CSRF token (sign-out form); undefined on the sign-in page. */
  csrf?: string;
  flash?: { text: string; error?: boolean } | undefined;
  /** false without authentication (`--insecure-no-auth`): there is nothing to sign out of. */
  signOut?: boolean;
  body: Html;
}

const navLink = (href: string, label: string, current: boolean) =>
  html`<a href="${href}"${current ? html` aria-current="page"` : ""}>${label}</a>`;

/** The page shell: head with the packaged assets, navigation, sign-out, flash and content. */
export function shell(o: ShellOptions): Html {
  const nav =
    o.csrf === undefined
      ? ""
      : html`<nav aria-label="Main" id="main-nav">
            ${navLink("/ui", "Overview", o.section === "overview")}
            ${navLink("/ui/runs", "Runs", o.section === "runs")}
            ${navLink("/ui/queue", "Queue", o.section === "queue")}
            ${o.panels.map((p) =>
              navLink(`/ui/pipelines/${p.name}`, p.title, o.section === `pipeline:${p.name}`),
            )}
          </nav>
          ${
            o.signOut === false
              ? ""
              : html`<form method="post" action="/ui/sign-out" class="signout">
            <input type="hidden" name="_csrf" value="${o.csrf}" />
            <button type="submit" class="secondary">Sign out</button>
          </form>`
          }`;
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false}' />
    <title>${o.title} · Tidemark</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${assetUrl("uplot.min.css")}" />
    <link rel="stylesheet" href="${assetUrl("app.css")}" />
    <script src="${assetUrl("htmx.min.js")}" defer></script>
    <script src="${assetUrl("uplot.min.js")}" defer></script>
    <script src="${assetUrl("app.js")}" defer></script>
  </head>
  <body${o.csrf ? html` hx-headers='{"X-CSRF-Token":"${o.csrf}"}'` : ""}>
    <a class="skip" href="#content">Skip to content</a>
    <header class="top"><span class="brand">Tidemark</span>${
      o.csrf === undefined
        ? ""
        : html`<button type="button" class="menu-toggle" aria-expanded="false" aria-controls="main-nav">Menu</button>`
    }${nav}<span class="tz">Times in UTC</span></header>
    <main id="content" tabindex="-1">
      ${o.flash ? html`<p class="flash${o.flash.error ? " error" : ""}" role="status">${o.flash.text}</p>` : ""}
      ${o.body}
    </main>
  </body>
</html>`;
}

/** A status word with its colour. */
export function statusBadge(status: string | null | undefined): Html {
  if (!status) return html`<span class="tone-muted">never ran</span>`;
  return html`<span class="badge status-${status}">${status}</span>`;
}

/** A hidden CSRF input for a form. */
export function csrfInput(csrf: string): Html {
  return html`<input type="hidden" name="_csrf" value="${csrf}" />`;
}
