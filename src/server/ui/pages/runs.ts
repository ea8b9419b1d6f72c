import { html } from "hono/html";
import type { RunStatus } from "../../../engine/engine-tables.ts";
import { JobRepo } from "../../../engine/jobs/job-repo.ts";
import type { RunRecord } from "../../../engine/runs/run-repo.ts";
import type { ServerServices } from "../../server-services.ts";
import { RUN_STATUSES, runsPage } from "../data/dashboard-data.ts";
import { relative, runDuration } from "../format.ts";
import { statusBadge } from "../layout.ts";
import type { Html, UiApp } from "../ui-env.ts";
import type { PageShell } from "./page-shell.ts";

const PAGE_SIZE = 25;
const enc = encodeURIComponent;

function runRow(r: RunRecord, now: Date): Html {
  return html`<tr>
    <th scope="row"><a href="/ui/runs/${enc(r.runId)}">${r.runId}</a></th>
    <td>${r.jobName}</td>
    <td>${statusBadge(r.status)}${r.dryRun ? html` <span class="tone-muted">(dry run)</span>` : ""}</td>
    <td>${relative(r.startedAt, now)}</td>
    <td class="num">${runDuration(r.startedAt, r.finishedAt, now)}</td>
    <td class="hide-narrow">${r.error ?? ""}</td>
  </tr>`;
}

function query(job: string | undefined, status: string | undefined, page: number): string {
  const q = new URLSearchParams();
  if (job) q.set("job", job);
  if (status) q.set("status", status);
  if (page > 0) q.set("page", String(page));
  const s = q.toString();
  return s ? `/ui/runs?${s}` : "/ui/runs";
}

/** `GET /ui/runs?job=&status=&page=`: runs newest first, filtered, 25 a page. */
export function registerRuns(app: UiApp, services: ServerServices, page: PageShell): void {
  app.get("/ui/runs", async (c) => {
    const job = c.req.query("job") || undefined;
    const statusQ = c.req.query("status") || undefined;
    const pageQ = c.req.query("page") ?? "0";
    if (statusQ !== undefined && !RUN_STATUSES.includes(statusQ as RunStatus)) {
      return c.text(
        `unknown status ${JSON.stringify(statusQ)}: one of ${RUN_STATUSES.join(", ")}`,
        400,
      );
    }
    if (!/^\d{1,6}$/.test(pageQ)) return c.text("page must be a whole number", 400);
    const status = statusQ as RunStatus | undefined;
    const n = Number(pageQ);
    const now = services.runtime.clock.now();
    const [jobs, { runs, more }] = await Promise.all([
      new JobRepo(services.runtime.db).list(),
      runsPage(services, { jobName: job, status }, n, PAGE_SIZE),
    ]);
    const opt = (value: string, current: string | undefined, label = value) =>
      html`<option value="${value}"${value === (current ?? "") ? html` selected` : ""}>${label}</option>`;
    return c.html(
      page(c, {
        title: "Runs",
        section: "runs",
        body: html`<h1>Runs</h1>
          <form class="filters" method="get" action="/ui/runs" role="search">
            <label>Job <select name="job">${opt("", job, "all jobs")}${jobs.map((j) => opt(j.name, job))}</select></label>
            <label>Status <select name="status">${opt("", status, "any status")}${RUN_STATUSES.map((s) => opt(s, status))}</select></label>
            <button type="submit">Filter</button>
          </form>
          ${
            runs.length === 0
              ? html`<p class="card">No runs match.</p>`
              : html`<div class="table-wrap"><table id="runs">
                <thead><tr><th scope="col">Run</th><th scope="col">Job</th><th scope="col">Status</th>
                  <th scope="col">Started</th><th scope="col" class="num">Took</th><th scope="col" class="hide-narrow">Error</th></tr></thead>
                <tbody>${runs.map((r) => runRow(r, now))}</tbody></table></div>`
          }
          <nav class="pager" aria-label="Pages">
            ${n > 0 ? html`<a class="button secondary" href="${query(job, status, n - 1)}" rel="prev">Newer</a>` : ""}
            ${more ? html`<a class="button secondary" href="${query(job, status, n + 1)}" rel="next">Older</a>` : ""}
          </nav>`,
      }),
    );
  });
}
