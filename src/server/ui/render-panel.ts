import { html, raw } from "hono/html";
import type {
  PanelBlock,
  PanelCell,
  PanelChart,
  PanelView,
} from "../../engine/registry/panel-spec.ts";
import { utcTime } from "./format.ts";
import { csrfInput } from "./layout.ts";
import type { Html } from "./ui-env.ts";

/** A UTC timestamp as a panel may give it; shown as every table shows times (UTC, to the second). */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]00:?00)$/;

/**
 * Tables wider than this many columns become one card per row on a phone (each value beside
 * its column's name) instead of scrolling sideways past the card's edge.
 */
const STACK_FROM_COLUMNS = 3;

/** Only http(s) URLs become links or images; anything else (javascript:, data:) is dropped. */
function safeUrl(url: string | undefined): string | undefined {
  return url !== undefined && /^https?:\/\//i.test(url) ? url : undefined;
}

/** What a row is about (its first cell's text), to name the row's buttons. */
function rowName(row: readonly PanelCell[]): string {
  const first = row[0];
  if (first === null || first === undefined) return "";
  return typeof first === "object" ? first.text : String(first);
}

/**
 * One cell; `label` is its column's name, which a narrow screen shows beside the value when the
 * table is stacked into one card per row.
 */
function cell(c: PanelCell, pipeline: string, csrf: string, row = "", label = ""): Html {
  const named = label ? html` data-label="${label}"` : "";
  if (c === null) return html`<td class="tone-muted"${named}>—</td>`;
  if (typeof c === "number") return html`<td class="num"${named}>${c.toLocaleString("en-US")}</td>`;
  if (typeof c === "string") return html`<td${named}>${ISO_UTC.test(c) ? utcTime(c) : c}</td>`;
  const href = safeUrl(c.href);
  const image = safeUrl(c.image);
  const text = href
    ? html`<a href="${href}" rel="noopener noreferrer" target="_blank">${c.text}</a>`
    : c.text;
  const button = c.button
    ? html`<form method="post" action="/ui/pipelines/${pipeline}/actions/${encodeURIComponent(c.button.action)}">
        ${csrfInput(csrf)}
        ${Object.entries(c.button.input).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}
        <button type="submit" class="secondary"${row ? html` aria-label="${c.button.label}: ${row}"` : ""}>${c.button.label}</button></form>`
    : "";
  return html`<td${c.tone ? html` class="tone-${c.tone}"` : ""}${named}>${image ? html`<img class="panel-img" src="${image}" alt="" loading="lazy" referrerpolicy="no-referrer" />` : ""}${text}${button}</td>`;
}

/**
 * Embeds the chart's data as JSON for app.js, unescaped (it is not HTML) but with `<` written
 * as \u003c, so no text in it can close the script element.
 */
export function chart(b: PanelChart): Html {
  const spec = JSON.stringify({
    time: b.time,
    x: b.x,
    series: b.series,
    band: b.band,
    labels: b.labels,
    y: b.y,
  }).replace(/</g, "\\u003c");
  // No data: the text alone, not a blank chart-sized box announced as an image of the series.
  if (b.x.length === 0) {
    return html`<section class="card" aria-label="${b.title}">
    <h2>${b.title}</h2><p class="tone-muted">${b.empty ?? "No data yet."}</p></section>`;
  }
  return html`<section class="card" aria-label="${b.title}">
    <h2>${b.title}</h2>
    <div class="chart" role="img" aria-label="${b.title}: ${b.series.map((s) => s.label).join(", ")}" data-series-expected="${b.series.length}">
      <script type="application/json">${raw(spec)}</script>
    </div>
  </section>`;
}

type PanelTable = Extract<PanelBlock, { kind: "table" }>;

function table(b: PanelTable, pipeline: string, csrf: string): Html {
  const stack = b.columns.length > STACK_FROM_COLUMNS;
  // Stacked rows name each value by its column.
  const label = (i: number) => (stack ? (b.columns[i] ?? "") : "");
  return html`<section class="card" aria-label="${b.title}"><h2>${b.title}</h2>
        ${
          b.rows.length === 0
            ? html`<p class="tone-muted">${b.empty}</p>`
            : html`<div class="table-wrap"><table${stack ? html` class="stack-narrow"` : ""}>
              <thead><tr>${b.columns.map((c) => (c ? html`<th scope="col">${c}</th>` : html`<td></td>`))}</tr></thead>
              <tbody>${b.rows.map((r) => html`<tr>${r.map((c, i) => cell(c, pipeline, csrf, rowName(r), label(i)))}</tr>`)}</tbody>
            </table></div>`
        }</section>`;
}

function block(b: PanelBlock, pipeline: string, csrf: string): Html {
  switch (b.kind) {
    case "stats":
      return html`<ul class="stats">${b.items.map(
        (i) =>
          html`<li><span class="label">${i.label}</span><span class="value${i.tone ? ` tone-${i.tone}` : ""}">${typeof i.value === "number" ? i.value.toLocaleString("en-US") : i.value}</span></li>`,
      )}</ul>`;
    case "table":
      return table(b, pipeline, csrf);
    case "chart":
      return chart(b);
    case "note":
      return html`<p class="card">${b.text}</p>`;
  }
}

/** A panel's view as HTML: every text escaped, links and images only over http(s). */
export function renderPanel(view: PanelView, pipeline: string, csrf: string): Html {
  return html`${view.blocks.map((b) => block(b, pipeline, csrf))}`;
}
