import { html } from "hono/html";
import { redactText } from "../../../infra/logging/redact.ts";
import type { ChildrenOfRun, ChildState } from "../data/run-children-data.ts";
import { errorExcerpt, relative, utcTime } from "../format.ts";
import type { Html } from "../ui-env.ts";

const TONE: Record<ChildState, string> = {
  dead: "tone-bad",
  retrying: "tone-bad",
  active: "tone-warn",
  waiting: "tone-warn",
  completed: "tone-ok",
  gone: "tone-muted",
};

/** "3 dead, 1 retrying, 12 completed": a run's children counted, the failing counts first. */
export function childrenCounts(c: ChildrenOfRun): Html {
  if (c.unknown)
    return html`<span class="tone-muted">${c.total} queued (no queue open here)</span>`;
  const parts = (Object.keys(TONE) as ChildState[]).filter((s) => c.counts[s] > 0);
  return html`${parts.map(
    (s, i) =>
      html`${i > 0 ? ", " : ""}<span class="${TONE[s]}" data-children="${s}">${c.counts[s]} ${s}</span>`,
  )}`;
}

/** A short warning for a run (or its job) whose queued work is failing. */
export function childrenBadge(c: ChildrenOfRun | undefined): Html | string {
  if (!c || c.counts.dead + c.counts.retrying === 0) return "";
  const n = c.counts.dead + c.counts.retrying;
  return html`<span class="badge tone-bad children-failing">${n} queued message${n === 1 ? "" : "s"} failing</span>`;
}

/** The run's children as a table: each message's state, attempts, last error, next attempt. */
export function childrenTable(c: ChildrenOfRun, now: Date): Html {
  const row = (m: ChildrenOfRun["messages"][number]) => html`<tr data-state="${m.state}">
      <td><code>${m.id}</code><br /><span class="tone-muted">${m.queue}</span></td>
      <td class="${TONE[m.state]}">${m.state}</td>
      <td class="num">${m.info?.attempts ?? "—"}</td>
      <td class="error-cell">${m.info?.lastError ? errorExcerpt(redactText(m.info.lastError), 300) : ""}</td>
      <td>${m.info?.nextAttemptAt ? html`${utcTime(m.info.nextAttemptAt)} <span class="tone-muted">(${relative(m.info.nextAttemptAt, now)})</span>` : "—"}</td>
    </tr>`;
  const more = c.total - c.messages.length;
  return html`<section class="card" id="children" aria-label="Queued work of this run">
    <h2>Queued work <span class="tone-muted">(${c.total} message${c.total === 1 ? "" : "s"} this run sent)</span></h2>
    <p>${childrenCounts(c)}${c.counts.gone > 0 ? html` <span class="tone-muted">(gone: completed and purged, or deleted)</span>` : ""}</p>
    ${
      c.messages.length === 0
        ? ""
        : html`<div class="table-wrap"><table id="children-table">
      <thead><tr><th scope="col">Message</th><th scope="col">State</th><th scope="col" class="num">Attempts</th>
        <th scope="col">Last error</th><th scope="col">Next attempt</th></tr></thead>
      <tbody>${c.messages.map(row)}</tbody></table></div>`
    }
    ${more > 0 ? html`<p class="tone-muted">${more} more not shown.</p>` : ""}
    <p><a href="/ui/queue">The queue page</a> re-drives or deletes them.</p>
  </section>`;
}
