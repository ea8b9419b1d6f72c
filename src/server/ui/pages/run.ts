import { html } from "hono/html";
import { JobRepo } from "../../../engine/jobs/job-repo.ts";
import type { RunRecord } from "../../../engine/runs/run-repo.ts";
import { redactSecrets, redactText } from "../../../infra/logging/redact.ts";
import type { RequestedRun, ServerServices } from "../../server-services.ts";
import { childrenBadge, childrenTable } from "../components/children-view.ts";
import { jobLink } from "../components/job-actions.ts";
import { summaryTable } from "../components/summary-table.ts";
import { findRun } from "../data/dashboard-data.ts";
import { type ChildrenOfRun, childrenOfRuns } from "../data/run-children-data.ts";
import { prettyJson, relative, runDuration, TIME_ZONE_LABEL, utcTime } from "../format.ts";
import { statusBadge } from "../layout.ts";
import type { Html, UiApp } from "../ui-env.ts";
import { uiError } from "./error-page.ts";
import type { PageShell } from "./page-shell.ts";

const enc = encodeURIComponent;

interface Failure {
  target?: unknown;
  kind?: unknown;
  message?: unknown;
}

/** A failure's field as text: strings as they are, anything else (an object target) as JSON. */
function fieldText(value: unknown): string {
  if (value === undefined || value === null) return "";
  return redactText(typeof value === "string" ? value : JSON.stringify(value));
}

/** Per-target failures a job recorded in its summary (`failures: [{ target, kind, message }]`). */
function failuresOf(summary: Record<string, unknown> | null): Failure[] {
  const list = summary?.failures;
  return Array.isArray(list) ? (list.filter((f) => f && typeof f === "object") as Failure[]) : [];
}

/** The summary as the job type describes it (`tidemark run` lines), when it can. */
function summaryLines(services: ServerServices, run: RunRecord): string[] | undefined {
  if (!run.summary) return undefined;
  try {
    const type = services.runtime.registry.jobType(run.jobType);
    return type.summaryLines?.(run.summary);
  } catch {
    return undefined;
  }
}

/** The run's latest progress: a bar with done/total and its figures. */
function progressBlock(run: RunRecord): Html | string {
  const p = run.progress;
  if (!p) return "";
  const figures = Object.entries(p.figures).map(([k, v]) => `${k} ${v}`);
  const bar =
    p.total === null
      ? html`<progress aria-label="${p.label}"></progress>`
      : html`<progress aria-label="${p.label}" max="${p.total}" value="${p.done}"></progress>`;
  return html`<div id="progress" class="card"><strong>${p.label}</strong> ${bar}
      <span>${p.done}/${p.total ?? "?"}</span>${figures.length > 0 ? html` <span class="tone-muted">${figures.join(", ")}</span>` : ""}</div>`;
}

function runBody(
  services: ServerServices,
  run: RunRecord,
  params: unknown,
  children: ChildrenOfRun | undefined,
): Html {
  const now = services.runtime.clock.now();
  const live = run.status === "running";
  const failures = failuresOf(run.summary);
  const lines = summaryLines(services, run);
  return html`<div id="run" data-status="${run.status}"${live ? html` hx-get="/ui/fragments/runs/${enc(run.runId)}" hx-trigger="every 2s" hx-swap="outerHTML"` : ""}>
    <dl class="facts card">
      <dt>Status</dt><dd>${statusBadge(run.status)}${run.dryRun ? " (dry run)" : ""} ${childrenBadge(children)}</dd>
      <dt>Job</dt><dd>${jobLink(run.jobName)} <span class="tone-muted">${run.jobType}</span></dd>
      <dt>Started</dt><dd>${utcTime(run.startedAt)} ${TIME_ZONE_LABEL} <span class="tone-muted">(${relative(run.startedAt, now)})</span></dd>
      <dt>Finished</dt><dd>${run.finishedAt ? `${utcTime(run.finishedAt)} ${TIME_ZONE_LABEL}` : "—"}</dd>
      <dt>${live ? "Running for" : "Took"}</dt><dd>${runDuration(run.startedAt, run.finishedAt, now)}</dd>
      <dt>Host</dt><dd>${run.host} (pid ${run.pid})</dd>
    </dl>
    ${progressBlock(run)}
    ${children ? childrenTable(children, now) : ""}
    ${run.error ? html`<h2>Error</h2><pre class="error">${redactText(run.error)}</pre>` : ""}
    ${paramsBlock(run, params)}
    <h2>Summary</h2>
    ${
      run.summary
        ? html`${summaryTable(run.summary, failures.length > 0 ? ["failures"] : [])}
          ${lines ? html`<details><summary>As <code>tidemark run</code> prints it</summary><pre>${redactText(lines.join("\n"))}</pre></details>` : ""}
          <details><summary>The full summary (JSON)</summary><pre>${prettyJson(redactSecrets(run.summary))}</pre></details>`
        : html`<p class="tone-muted">${live ? "(running…)" : "(none)"}</p>`
    }
    ${
      failures.length > 0
        ? html`<h2>Failed targets</h2><div class="table-wrap"><table id="failures">
          <thead><tr><th scope="col">Target</th><th scope="col">Kind</th><th scope="col">Message</th></tr></thead>
          <tbody>${failures.map((f) => html`<tr><td>${fieldText(f.target)}</td><td>${fieldText(f.kind)}</td><td>${fieldText(f.message)}</td></tr>`)}</tbody>
        </table></div>`
        : ""
    }
  </div>`;
}

/** The params the run ran with; for runs recorded before those were kept, the job's current. */
function paramsBlock(run: RunRecord, jobParams: unknown): Html {
  if (run.params !== undefined) {
    return html`<h2>Params</h2><pre>${prettyJson(redactSecrets(run.params))}</pre>`;
  }
  return html`<h2>Params <span class="tone-muted">(not recorded with this run: the job's, as stored now)</span></h2>
    <pre>${jobParams === undefined ? `(no job named ${run.jobName} is stored: an ad-hoc run, or a job removed since)` : prettyJson(redactSecrets(jobParams))}</pre>`;
}

function requestedBody(r: RequestedRun): Html {
  const waiting = r.status === "queued";
  return html`<div id="run" data-status="${r.status}"${waiting ? html` hx-get="/ui/fragments/runs/${enc(r.runId)}" hx-trigger="every 1s" hx-swap="outerHTML"` : ""}>
    <dl class="facts card">
      <dt>Status</dt><dd>${statusBadge(r.status)}</dd>
      <dt>Job</dt><dd>${jobLink(r.jobName)}</dd>
      <dt>Requested</dt><dd>${utcTime(r.requestedAt)} ${TIME_ZONE_LABEL}</dd>
      <dt>Attempts</dt><dd>${r.attempts}</dd>
    </dl>
    ${r.error ? html`<h2>Error</h2><pre>${redactText(r.error)}</pre>` : ""}
    ${waiting ? html`<p class="tone-muted">Waiting for a worker…</p>` : ""}
  </div>`;
}

/** The run (or the request still waiting for a worker), as a fragment; undefined when unknown. */
async function runFragment(services: ServerServices, runId: string): Promise<Html | undefined> {
  const run = await findRun(services, runId);
  if (run) {
    const job = await new JobRepo(services.runtime.db).get(run.jobName);
    const children = await childrenOfRuns(services, [run.runId]);
    return runBody(services, run, job?.params, children.get(run.runId));
  }
  const requested = await services.findRequestedRun(runId);
  return requested && requestedBody(requested);
}

/** `GET /ui/runs/:id` and its live fragment `GET /ui/fragments/runs/:id`. */
export function registerRun(app: UiApp, services: ServerServices, page: PageShell): void {
  app.get("/ui/runs/:id", async (c) => {
    const id = c.req.param("id");
    const body = await runFragment(services, id);
    if (!body) uiError(404, `unknown run ${JSON.stringify(id)}`);
    return c.html(
      page(c, {
        title: `Run ${id}`,
        section: "runs",
        body: html`<h1>Run <code>${id}</code></h1>${body}`,
      }),
    );
  });
  app.get("/ui/fragments/runs/:id", async (c) => {
    const body = await runFragment(services, c.req.param("id"));
    return body ? c.html(body) : c.text("unknown run", 404);
  });
}
