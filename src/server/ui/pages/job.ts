import { html } from "hono/html";
import { JobRepo } from "../../../engine/jobs/job-repo.ts";
import { runAsOfNow } from "../../../engine/runs/run-liveness.ts";
import { RunRepo } from "../../../engine/runs/run-repo.ts";
import { redactSecrets, redactText } from "../../../infra/logging/redact.ts";
import type { ServerServices } from "../../server-services.ts";
import { childrenBadge, childrenCounts } from "../components/children-view.ts";
import { jobActions } from "../components/job-actions.ts";
import { runStrip } from "../components/run-strip.ts";
import { historyCharts, itemsOf, nextFires, successRate } from "../data/job-page-data.ts";
import { jobsHealth } from "../data/overview-data.ts";
import {
  errorExcerpt,
  prettyJson,
  relative,
  runDuration,
  TIME_ZONE_LABEL,
  utcTime,
} from "../format.ts";
import { statusBadge } from "../layout.ts";
import { chart } from "../render-panel.ts";
import type { Html, UiApp } from "../ui-env.ts";
import { uiError } from "./error-page.ts";
import type { PageShell } from "./page-shell.ts";

const enc = encodeURIComponent;
/** Runs the page's history, charts and success rate cover. */
const HISTORY = 50;

/** The runs table of the job's page, newest first. */
function historyTable(runs: Awaited<ReturnType<typeof loadRuns>>, now: Date): Html {
  return html`<div class="table-wrap"><table id="job-runs" class="stack-narrow">
    <thead><tr><th scope="col">Run</th><th scope="col">Status</th><th scope="col">Started (${TIME_ZONE_LABEL})</th>
      <th scope="col" class="num">Took</th><th scope="col" class="num">Items</th><th scope="col" class="hide-narrow">Error</th></tr></thead>
    <tbody>${runs.map(
      (r) => html`<tr><th scope="row"><a href="/ui/runs/${enc(r.runId)}">${r.runId}</a></th>
        <td data-label="Status">${statusBadge(r.status)}</td><td class="when" data-label="Started">${utcTime(r.startedAt)}</td>
        <td class="num" data-label="Took">${runDuration(r.startedAt, r.finishedAt, now)}</td>
        <td class="num" data-label="Items">${itemsOf(r) ?? "—"}</td>
        <td class="hide-narrow error-cell">${r.error ? errorExcerpt(redactText(r.error)) : ""}</td></tr>`,
    )}</tbody></table></div>`;
}

async function loadRuns(services: ServerServices, name: string) {
  const stored = await new RunRepo(services.runtime.db).list({ jobName: name, limit: HISTORY });
  return Promise.all(stored.map((r) => runAsOfNow(services.runtime, r)));
}

/** The job's page body; undefined when there is neither such a job nor a run of that name. */
async function jobBody(services: ServerServices, name: string, csrf: string) {
  const now = services.runtime.clock.now();
  const [job, runs] = await Promise.all([
    new JobRepo(services.runtime.db).get(name),
    loadRuns(services, name),
  ]);
  if (!job && runs.length === 0) return undefined;
  const [health] = await jobsHealth(services, name);
  const rate = successRate(runs);
  const fires = job ? nextFires(job, now) : [];
  const failed = runs.find((r) => r.error);
  // A chart without a single value says why instead of drawing an empty frame.
  const charts = historyCharts(runs).map((c) =>
    c.series.every((s) => s.values.every((v) => v === null))
      ? {
          ...c,
          x: [],
          empty: runs.length === 0 ? "No runs yet." : c.empty,
        }
      : c,
  );
  const facts = job
    ? html`<dl class="facts card">
      <dt>Type</dt><dd>${job.type}</dd>
      <dt>State</dt><dd>${job.enabled ? html`<span class="tone-ok">enabled</span>` : html`<span class="tone-muted">disabled${health?.disabledReason ? html` (demo)<span class="sub">${health.disabledReason}</span>` : ""}</span>`}</dd>
      <dt>Schedule</dt><dd>${job.schedule ? html`<code>${job.schedule}</code> (${job.timezone})${job.jitter ? ` + up to ${job.jitter} s jitter` : ""}` : "manual (no schedule)"}</dd>
      <dt>Next fires</dt><dd>${fires.length === 0 ? html`<span class="tone-muted">${job.schedule ? "none (disabled)" : "none"}</span>` : html`<ul class="plain">${fires.map((f) => html`<li>${utcTime(f)} <span class="tone-muted">(${relative(f, now)})</span></li>`)}</ul>`}</dd>
      ${health?.lateSince ? html`<dt>Late</dt><dd class="tone-bad">due ${utcTime(health.lateSince)} and not started</dd>` : ""}
      <dt>Success rate</dt><dd data-success-rate>${rate ? `${Math.round(rate.rate * 100)}% of the last ${rate.of} finished runs` : "—"}</dd>
      ${health?.children ? html`<dt>Latest run's queued work</dt><dd>${childrenCounts(health.children)} ${childrenBadge(health.children)}</dd>` : ""}
    </dl>${jobActions(job, csrf, `/ui/jobs/${enc(job.name)}`)}`
    : html`<p class="card">No job named <code>${name}</code> is stored: these are ad-hoc runs, or the job was removed.</p>`;
  return html`${facts}
    ${health ? html`<h2>Recent runs</h2>${runStrip(health.recent, now, health.recent.length)}` : ""}
    ${failed ? html`<h2>Last error <span class="tone-muted">(<a href="/ui/runs/${enc(failed.runId)}">${utcTime(failed.finishedAt ?? failed.startedAt)} ${TIME_ZONE_LABEL}</a>)</span></h2><pre class="error">${redactText(failed.error!)}</pre>` : ""}
    ${job ? html`<h2>Params</h2><pre>${prettyJson(redactSecrets(job.params))}</pre>` : ""}
    <div class="charts">${charts.map(chart)}</div>
    <h2>Run history <span class="tone-muted">(last ${HISTORY})</span></h2>
    ${runs.length === 0 ? html`<p class="card">No runs yet.</p>` : historyTable(runs, now)}
    <p><a href="/ui/runs?job=${enc(name)}">Every run of ${name}</a></p>`;
}

/** `GET /ui/jobs/:name`: a job's schedule, params, history and actions. */
export function registerJob(app: UiApp, services: ServerServices, page: PageShell): void {
  app.get("/ui/jobs/:name", async (c) => {
    const name = c.req.param("name");
    const body = await jobBody(services, name, c.get("csrf"));
    if (!body) uiError(404, `unknown job ${JSON.stringify(name)}`);
    return c.html(
      page(c, {
        title: `Job ${name}`,
        section: "overview",
        body: html`<h1>Job <code>${name}</code></h1>${body}`,
      }),
    );
  });
}
