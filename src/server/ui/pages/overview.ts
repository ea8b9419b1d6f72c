import { html } from "hono/html";
import { JobService } from "../../../engine/jobs/job-service.ts";
import type { JobOverview } from "../../../engine/runs/job-overview.ts";
import type { ServerServices } from "../../server-services.ts";
import { setFlash } from "../auth-middleware.ts";
import { overviewJobs, RUN_STATUSES, runsLast24h } from "../data/dashboard-data.ts";
import { relative } from "../format.ts";
import { csrfInput, statusBadge } from "../layout.ts";
import type { Html, UiApp } from "../ui-env.ts";
import { uiError } from "./error-page.ts";
import type { PageShell } from "./page-shell.ts";

const enc = encodeURIComponent;

/** A job's row. Its buttons have ids, so htmx gives focus back to them after each refresh. */
function jobRow(o: JobOverview, now: Date, csrf: string): Html {
  const { job, lastRun } = o;
  return html`<tr data-job="${job.name}">
    <th scope="row">${job.name}</th>
    <td class="hide-narrow">${job.type}</td>
    <td>${job.schedule ?? "manual"}${job.schedule ? html` <span class="tone-muted">(${job.timezone})</span>` : ""}</td>
    <td>${relative(o.nextOccurrenceAt, now)}</td>
    <td>${
      lastRun
        ? html`<a href="/ui/runs/${enc(lastRun.runId)}">${statusBadge(lastRun.status)}</a>
            <span class="tone-muted">${relative(lastRun.startedAt, now)}</span>`
        : statusBadge(null)
    }</td>
    <td>${job.enabled ? html`<span class="tone-ok">enabled</span>` : html`<span class="tone-muted">disabled</span>`}</td>
    <td><div class="actions">
      <form method="post" action="/ui/jobs/${enc(job.name)}/run">${csrfInput(csrf)}
        <button type="submit" id="run-${job.name}" aria-label="Run ${job.name} now">Run now</button></form>
      <form method="post" action="/ui/jobs/${enc(job.name)}/enabled">${csrfInput(csrf)}
        <input type="hidden" name="enabled" value="${job.enabled ? "false" : "true"}" />
        <button type="submit" class="secondary" id="toggle-${job.name}" aria-label="${job.enabled ? "Disable" : "Enable"} ${job.name}">${job.enabled ? "Disable" : "Enable"}</button></form>
    </div></td>
  </tr>`;
}

/** The live part of the overview (polled every 5 s): runs of the last 24 h and the jobs. */
export async function overviewFragment(services: ServerServices, csrf: string): Promise<Html> {
  const now = services.runtime.clock.now();
  const [jobs, counts] = await Promise.all([overviewJobs(services), runsLast24h(services)]);
  return html`<div id="overview" hx-get="/ui/fragments/overview" hx-trigger="every 5s" hx-swap="outerHTML">
    <h2>Runs in the last 24 hours</h2>
    <ul class="stats" aria-label="Runs in the last 24 hours by status">
      ${RUN_STATUSES.map(
        (s) => html`<li><a href="/ui/runs?status=${s}&amp;since=24h"><span class="label">${s}</span>
          <span class="value status-${s}" data-count="${s}">${counts[s] ?? 0}</span></a></li>`,
      )}
    </ul>
    <h2>Jobs</h2>
    ${
      jobs.length === 0
        ? html`<p class="card">No jobs yet: add one with <code>tidemark job add</code>, or run <code>tidemark demo</code>.</p>`
        : html`<div class="table-wrap"><table id="jobs">
          <caption class="skip">Jobs, failing first</caption>
          <thead><tr><th scope="col">Job</th><th scope="col" class="hide-narrow">Type</th><th scope="col">Schedule</th>
            <th scope="col">Next fire</th><th scope="col">Last run</th><th scope="col">Enabled</th><th scope="col">Actions</th></tr></thead>
          <tbody>${jobs.map((j) => jobRow(j, now, csrf))}</tbody>
        </table></div>`
    }
  </div>`;
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
    return c.redirect("/ui", 303);
  });
}
