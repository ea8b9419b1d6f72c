import { html } from "hono/html";
import type { RunStatus } from "../../../engine/engine-tables.ts";
import type { RunRecord } from "../../../engine/runs/run-repo.ts";
import { redactText } from "../../../infra/logging/redact.ts";
import type { ServerServices } from "../../server-services.ts";
import { RUN_STATUSES, runJobNames, runsPage } from "../data/dashboard-data.ts";
import { relative, runDuration } from "../format.ts";
import { statusBadge } from "../layout.ts";
import type { Html, UiApp } from "../ui-env.ts";
import { uiError } from "./error-page.ts";
import type { PageShell } from "./page-shell.ts";

const PAGE_SIZE = 25;
/** The time windows `since=` takes. */
const WINDOWS = { "24h": { hours: 24, label: "24 hours" }, "7d": { hours: 168, label: "7 days" } };
const enc = encodeURIComponent;

/** Most characters of an error the list shows; the run's page has it whole. */
const ERROR_SHOWN = 160;

/** An error's first line, cut to ERROR_SHOWN characters (by code point) with "…". */
function shortError(error: string): string {
  const first = error.split("\n", 1)[0]!;
  const chars = Array.from(first);
  const cut = chars.length > ERROR_SHOWN || first !== error;
  return cut ? `${chars.slice(0, ERROR_SHOWN).join("")}…` : first;
}

function runRow(r: RunRecord, now: Date): Html {
  return html`<tr>
    <th scope="row"><a href="/ui/runs/${enc(r.runId)}">${r.runId}</a></th>
    <td data-label="Job"><a href="/ui/jobs/${enc(r.jobName)}">${r.jobName}</a></td>
    <td data-label="Status">${statusBadge(r.status)}${r.dryRun ? html` <span class="tone-muted">(dry run)</span>` : ""}</td>
    <td class="when" data-label="Started">${relative(r.startedAt, now)}</td>
    <td class="num" data-label="Took">${runDuration(r.startedAt, r.finishedAt, now)}</td>
    <td class="hide-narrow error-cell">${r.error ? shortError(redactText(r.error)) : ""}</td>
  </tr>`;
}

/** The runs list's query: which job and status, which page, and "the last 24 hours / 7 days" only. */
interface RunsQuery {
  job?: string | undefined;
  status?: RunStatus | undefined;
  /** `since=24h` / `since=7d`: what the overview's counts of those windows link to. */
  since: keyof typeof WINDOWS | undefined;
  page: number;
}

function query(q: RunsQuery, page: number): string {
  const p = new URLSearchParams();
  if (q.job) p.set("job", q.job);
  if (q.status) p.set("status", q.status);
  if (q.since) p.set("since", q.since);
  if (page > 0) p.set("page", String(page));
  const s = p.toString();
  return s ? `/ui/runs?${s}` : "/ui/runs";
}

/** Reads and checks the query; a bad value is a 400 page naming it. */
function parseQuery(get: (name: string) => string | undefined): RunsQuery {
  const status = get("status") || undefined;
  if (status !== undefined && !RUN_STATUSES.includes(status as RunStatus)) {
    uiError(400, `unknown status ${JSON.stringify(status)}: one of ${RUN_STATUSES.join(", ")}`);
  }
  const page = get("page") ?? "0";
  if (!/^\d{1,6}$/.test(page)) uiError(400, "page must be a whole number");
  const since = get("since") || undefined;
  if (since !== undefined && !(since in WINDOWS))
    uiError(400, "since must be 24h or 7d (or left out)");
  return {
    job: get("job") || undefined,
    status: status as RunStatus | undefined,
    since: since as RunsQuery["since"],
    page: Number(page),
  };
}

/** The filter form; it keeps the 24-hour window, which a link beside it drops. */
function filters(q: RunsQuery, jobNames: readonly string[]): Html {
  const opt = (value: string, current: string | undefined, label = value) =>
    html`<option value="${value}"${value === (current ?? "") ? html` selected` : ""}>${label}</option>`;
  return html`<form class="filters" method="get" action="/ui/runs" role="search">
      <label>Job <select name="job">${opt("", q.job, "all jobs")}${jobNames.map((j) => opt(j, q.job))}</select></label>
      <label>Status <select name="status">${opt("", q.status, "any status")}${RUN_STATUSES.map((s) => opt(s, q.status))}</select></label>
      ${q.since ? html`<input type="hidden" name="since" value="${q.since}" />` : ""}
      <button type="submit">Filter</button>
    </form>
    ${q.since ? html`<p>Started in the last ${WINDOWS[q.since].label}. <a href="${query({ ...q, since: undefined }, 0)}">Show all</a></p>` : ""}`;
}

/** `GET /ui/runs?job=&status=&since=24h|7d&page=`: runs newest first, filtered, 25 a page. */
export function registerRuns(app: UiApp, services: ServerServices, page: PageShell): void {
  app.get("/ui/runs", async (c) => {
    const q = parseQuery((name) => c.req.query(name));
    const now = services.runtime.clock.now();
    const since = q.since
      ? new Date(now.getTime() - WINDOWS[q.since].hours * 3600 * 1000).toISOString()
      : undefined;
    const [names, { runs, more }] = await Promise.all([
      runJobNames(services),
      runsPage(services, { jobName: q.job, status: q.status, since }, q.page, PAGE_SIZE),
    ]);
    // A job asked for by a link (no run, or a typo) stays selected rather than showing "all jobs".
    const jobNames = q.job === undefined || names.includes(q.job) ? names : [q.job, ...names];
    return c.html(
      page(c, {
        title: "Runs",
        section: "runs",
        body: html`<h1>Runs</h1>
          ${filters(q, jobNames)}
          ${
            runs.length === 0
              ? html`<p class="card">No runs match.</p>`
              : html`<div class="table-wrap"><table id="runs" class="stack-narrow">
                <thead><tr><th scope="col">Run</th><th scope="col">Job</th><th scope="col">Status</th>
                  <th scope="col">Started</th><th scope="col" class="num">Took</th><th scope="col" class="hide-narrow">Error</th></tr></thead>
                <tbody>${runs.map((r) => runRow(r, now))}</tbody></table></div>`
          }
          <nav class="pager" aria-label="Pages">
            ${q.page > 0 ? html`<a class="button secondary" href="${query(q, q.page - 1)}" rel="prev">Newer</a>` : ""}
            ${more ? html`<a class="button secondary" href="${query(q, q.page + 1)}" rel="next">Older</a>` : ""}
          </nav>`,
      }),
    );
  });
}
