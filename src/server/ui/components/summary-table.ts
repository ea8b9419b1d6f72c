import { html } from "hono/html";
import { redactSecrets, redactText } from "../../../infra/logging/redact.ts";
import type { Html } from "../ui-env.ts";

/** Rows of a list shown inside the summary table; the full JSON has the rest. */
const LIST_ROWS = 20;

/** "items_changed" → "items changed". */
const label = (key: string) =>
  key
    .replace(/[_-]+/g, " ")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase();

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function scalar(v: unknown): Html | string {
  if (v === null || v === undefined) return html`<span class="tone-muted">—</span>`;
  if (typeof v === "number") return v.toLocaleString("en-US");
  if (typeof v === "boolean") return v ? "yes" : "no";
  return redactText(String(v));
}

/** A list of objects as a table with one column per key (the first LIST_ROWS rows). */
function listTable(list: readonly Record<string, unknown>[]): Html {
  const keys = [...new Set(list.flatMap((o) => Object.keys(o)))];
  const shown = list.slice(0, LIST_ROWS);
  return html`<div class="table-wrap"><table class="nested">
    <thead><tr>${keys.map((k) => html`<th scope="col">${label(k)}</th>`)}</tr></thead>
    <tbody>${shown.map((o) => html`<tr>${keys.map((k) => html`<td>${value(o[k], 1)}</td>`)}</tr>`)}</tbody>
  </table></div>${list.length > shown.length ? html`<span class="tone-muted">${list.length - shown.length} more in the full summary</span>` : ""}`;
}

function value(v: unknown, depth: number): Html | string {
  if (Array.isArray(v)) {
    if (v.length === 0) return html`<span class="tone-muted">none</span>`;
    if (depth === 0 && v.every(isPlain)) return listTable(v);
    if (v.every((x) => !isPlain(x) && !Array.isArray(x)))
      return v.map((x) => String(scalar(x))).join(", ");
    return html`<code>${redactText(JSON.stringify(v))}</code>`;
  }
  if (isPlain(v)) {
    if (depth > 1) return html`<code>${redactText(JSON.stringify(v))}</code>`;
    return html`<table class="nested kv"><tbody>${Object.entries(v).map(
      ([k, x]) => html`<tr><th scope="row">${label(k)}</th><td>${value(x, depth + 1)}</td></tr>`,
    )}</tbody></table>`;
  }
  return scalar(v);
}

/**
 * A run's summary as a table of its fields (nested objects as inner tables, lists of records
 * as tables of their own), secrets masked; `skip` names fields shown elsewhere on the page.
 */
export function summaryTable(summary: Record<string, unknown>, skip: readonly string[] = []): Html {
  const safe = redactSecrets(summary) as Record<string, unknown>;
  const entries = Object.entries(safe).filter(([k]) => !skip.includes(k));
  if (entries.length === 0) return html`<p class="tone-muted">(empty)</p>`;
  return html`<div class="table-wrap"><table id="summary" class="kv">
    <tbody>${entries.map(([k, v]) => html`<tr><th scope="row">${label(k)}</th><td>${value(v, 0)}</td></tr>`)}</tbody>
  </table></div>`;
}
