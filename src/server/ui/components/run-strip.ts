import { html } from "hono/html";
import type { RunRecord } from "../../../engine/runs/run-repo.ts";
import { runDuration, utcTime } from "../format.ts";
import type { Html } from "../ui-env.ts";

/**
 * A job's recent runs as a strip of cells, oldest on the left, one per run, coloured by status
 * and linked to the run (the grid operators know from Airflow).
 */
export function runStrip(recent: readonly RunRecord[], now: Date, slots: number): Html {
  const runs = [...recent].reverse();
  const pad = Math.max(0, slots - runs.length);
  return html`<div class="strip" role="list" aria-label="Recent runs, oldest first">${Array.from(
    { length: pad },
    () => html`<span class="cell empty" aria-hidden="true"></span>`,
  )}${runs.map((r) => {
    const what = `${r.status}, started ${utcTime(r.startedAt)} UTC, took ${runDuration(r.startedAt, r.finishedAt, now)}`;
    return html`<a role="listitem" class="cell cell-${r.status}" href="/ui/runs/${encodeURIComponent(r.runId)}" title="${what}" aria-label="Run ${r.runId}: ${what}"></a>`;
  })}</div>`;
}
