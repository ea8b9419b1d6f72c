import { html } from "hono/html";
import { JobService } from "../../../engine/jobs/job-service.ts";
import type { QueueStats } from "../../../engine/queue/queue.ts";
import { redactText } from "../../../infra/logging/redact.ts";
import type { ServerServices } from "../../server-services.ts";
import { setFlash } from "../auth-middleware.ts";
import { childrenBadge } from "../components/children-view.ts";
import { jobActions, jobLink } from "../components/job-actions.ts";
import { runStrip } from "../components/run-strip.ts";
import { warningsBanner } from "../components/warnings.ts";
import { RUN_STATUSES, runsSince } from "../data/dashboard-data.ts";
import { stuckWarnings } from "../data/health-data.ts";
import { isFailing, type JobHealth, jobsHealth, STRIP_RUNS } from "../data/overview-data.ts";
import { errorExcerpt, relative, shortDuration, TIME_ZONE_LABEL, utcTime } from "../format.ts";
import { statusBadge } from "../layout.ts";
import type { Html, UiApp } from "../ui-env.ts";
import { uiError } from "./error-page.ts";
import type { PageShell } from "./page-shell.ts";

const enc = encodeURIComponent;

/** A job's row: name, strip of recent runs, schedule, last run, last error, actions. */
function jobRow(j: JobHealth, now: Date, csrf: string): Html {
  const { job, lastRun } = j;
  return html`<tr data-job="${job.name}"${j.lateSince ? html` data-late="true"` : ""}>
    <th scope="row">${jobLink(job.name)}<span class="sub">${job.type}</span></th>
    <td>${runStrip(j.recent, now, STRIP_RUNS)}</td>
    <td>${
      j.adHoc
        ? html`<span class="tone-muted" title="no stored job: runs started by a command, or of a removed job">ad hoc</span>`
        : html`${job.schedule ? html`<code>${job.schedule}</code> <span class="tone-muted">${job.timezone}</span>` : html`<span class="tone-muted">manual</span>`}
      <span class="sub">${
        j.lateSince
          ? html`<span class="tone-bad">late: due ${relative(j.lateSince, now)}</span>`
          : job.enabled
            ? html`next ${relative(j.nextOccurrenceAt, now)}`
            : j.disabledReason
              ? html`<span class="tone-muted" title="${j.disabledReason}">disabled (demo)</span>`
              : html`<span class="tone-muted">disabled</span>`
      }</span>`
    }</td>
    <td>${
      lastRun
        ? html`<a href="/ui/runs/${enc(lastRun.runId)}">${statusBadge(lastRun.status)}</a>
            <span class="tone-muted">${relative(lastRun.startedAt, now)}</span> ${childrenBadge(j.children)}`
        : statusBadge(null)
    }</td>
    <td class="error-cell hide-narrow">${
      j.lastError
        ? html`<a href="/ui/runs/${enc(j.lastError.runId)}" class="${isFailing(j) ? "tone-bad" : "tone-muted"}">${errorExcerpt(redactText(j.lastError.error), 120)}</a>${
            isFailing(j)
              ? ""
              : html`<span class="sub">an earlier run; the latest did not fail</span>`
          }`
        : ""
    }</td>
    <td>${j.adHoc ? "" : jobActions(job, csrf, "/ui")}</td>
  </tr>`;
}

/** What "(demo)" and "ad hoc" in the jobs table mean, said once above it. */
function demoNote(jobs: readonly JobHealth[]): Html {
  const reason = jobs.find((j) => j.disabledReason)?.disabledReason;
  const adHoc = jobs.some((j) => j.adHoc);
  return html`${reason ? html`<p class="tone-muted note" data-disabled-reason>(demo) = ${reason}. Point a pipeline at its fake before enabling its job.</p>` : ""}
    ${adHoc ? html`<p class="tone-muted note">ad hoc = no stored job: runs started by a command or the demo, or of a job removed since.</p>` : ""}`;
}

/** Runs of a window by status, each count linked to those runs. */
function counters(title: string, since: "24h" | "7d", counts: Record<string, number>): Html {
  return html`<div class="counters"><h2>${title}</h2>
    <ul class="stats" aria-label="${title} by status">
      ${RUN_STATUSES.map(
        (
          s,
        ) => html`<li><a href="/ui/runs?status=${s}&amp;since=${since}"><span class="label">${s}</span>
          <span class="value status-${s}" data-count${since === "24h" ? "" : "-7d"}="${s}">${counts[s] ?? 0}</span></a></li>`,
      )}
    </ul></div>`;
}

/** The queue in one line: waiting, active, dead, oldest waiting. */
function queueLine(stats: readonly QueueStats[] | undefined): Html {
  if (!stats) return html`<p class="card">No queue is open in this process.</p>`;
  const sum = (k: "queued" | "active" | "deadLettered") => stats.reduce((n, s) => n + s[k], 0);
  const oldest = Math.max(
    0,
    ...stats.filter((s) => s.queued > 0).map((s) => s.oldestQueuedAgeSeconds),
  );
  return html`<ul class="stats" id="queue-summary" aria-label="Queue">
    <li><a href="/ui/queue"><span class="label">waiting</span><span class="value" data-queue="waiting">${sum("queued")}</span></a></li>
    <li><a href="/ui/queue"><span class="label">active</span><span class="value" data-queue="active">${sum("active")}</span></a></li>
    <li><a href="/ui/queue"><span class="label">dead letters</span><span class="value${sum("deadLettered") > 0 ? " tone-bad" : ""}" data-queue="dead">${sum("deadLettered")}</span></a></li>
    <li><a href="/ui/queue"><span class="label">oldest waiting</span><span class="value" data-queue="oldest">${sum("queued") > 0 ? shortDuration(oldest * 1000) : "—"}</span></a></li>
  </ul>`;
}

/** The live part of the overview (polled every 5 s). */
export async function overviewFragment(services: ServerServices, csrf: string): Promise<Html> {
  const now = services.runtime.clock.now();
  const [jobs, day, week, queues] = await Promise.all([
    jobsHealth(services),
    runsSince(services, 24),
    runsSince(services, 24 * 7),
    services.queue?.stats(),
  ]);
  const warnings = await stuckWarnings(services, jobs, queues ?? []);
  return html`<div id="overview" hx-get="/ui/fragments/overview" hx-trigger="every 5s" hx-swap="outerHTML">
    ${warningsBanner(warnings)}
    <div class="overview-top">
      ${counters("Runs in the last 24 hours", "24h", day)}
      ${counters("Runs in the last 7 days", "7d", week)}
      <div class="counters"><h2>Queue</h2>${queueLine(queues)}</div>
    </div>
    <h2>Jobs</h2>
    ${demoNote(jobs)}
    ${
      jobs.length === 0
        ? html`<p class="card">No jobs yet: add one with <code>npx tidemark job add</code>, or run <code>npx tidemark demo</code>.</p>`
        : html`<div class="table-wrap"><table id="jobs" class="stack-narrow">
          <caption class="skip">Jobs, failing and late first</caption>
          <thead><tr><th scope="col">Job</th><th scope="col">Recent runs <span class="tone-muted">(oldest → newest)</span></th>
            <th scope="col">Schedule</th><th scope="col">Last run</th><th scope="col" class="hide-narrow">Last error</th><th scope="col">Actions</th></tr></thead>
          <tbody>${jobs.map((j) => jobRow(j, now, csrf))}</tbody>
        </table></div>`
    }
    <p class="tone-muted">Times in ${TIME_ZONE_LABEL}; now ${utcTime(now.toISOString())}.</p>
  </div>`;
}

/** Where a job form goes back to: the overview or a job's page. */
function backOf(value: unknown): string {
  return typeof value === "string" && /^\/ui\/jobs\/[^/?#\\]+$/.test(value) ? value : "/ui";
}

/** `GET /ui`, `GET /ui/fragments/overview`, `POST /ui/jobs/:name/run`, `POST /ui/jobs/:name/enabled`. */
export function registerOverview(app: UiApp, services: ServerServices, page: PageShell): void {
  const { runtime } = services;
  app.get("/ui", async (c) =>
    c.html(
      page(c, {
        title: "Overview",
        section: "overview",
        body: html`<h1>Overview</h1>${await overviewFragment(services, c.get("csrf"))}`,
      }),
    ),
  );
  app.get("/ui/fragments/overview", async (c) =>
    c.html(await overviewFragment(services, c.get("csrf"))),
  );

  app.post("/ui/jobs/:name/run", async (c) => {
    const jobs = new JobService(runtime.db, runtime.registry, runtime.clock);
    const job = await jobs.repo.get(c.req.param("name"));
    if (!job) uiError(404, `unknown job ${JSON.stringify(c.req.param("name"))}`);
    const queued = await services.requestRun(job, {});
    setFlash(c, `Queued a run of ${job.name}.`);
    return c.redirect(`/ui/runs/${enc(queued.runId)}`, 303);
  });

  app.post("/ui/jobs/:name/enabled", async (c) => {
    const body = await c.req.parseBody();
    if (body.enabled !== "true" && body.enabled !== "false")
      uiError(400, "enabled must be true or false");
    const jobs = new JobService(runtime.db, runtime.registry, runtime.clock);
    const name = c.req.param("name");
    if (!(await jobs.repo.get(name))) uiError(404, `unknown job ${JSON.stringify(name)}`);
    const job = await jobs.update(name, { enabled: body.enabled === "true" });
    setFlash(c, `${job.name} ${job.enabled ? "enabled" : "disabled"}.`);
    return c.redirect(backOf(body.back), 303);
  });
}
