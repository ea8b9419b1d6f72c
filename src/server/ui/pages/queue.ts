import { html } from "hono/html";
import type { Queue, QueueMessageInfo, QueueStats } from "../../../engine/queue/queue.ts";
import { redactSecrets, redactText } from "../../../infra/logging/redact.ts";
import type { ServerServices } from "../../server-services.ts";
import { setFlash } from "../auth-middleware.ts";
import { knownQueues } from "../data/dashboard-data.ts";
import { prettyJson, shortDuration } from "../format.ts";
import { csrfInput } from "../layout.ts";
import type { Html, UiApp } from "../ui-env.ts";
import { confirmBody } from "./confirm.ts";
import { uiError } from "./error-page.ts";
import type { PageShell } from "./page-shell.ts";

const DEAD_SHOWN = 50;

/** A queue's dead letters (the first DEAD_SHOWN of `total`), each with its re-drive button. */
function deadTable(queue: string, dead: QueueMessageInfo[], total: number, csrf: string): Html {
  // Each button names its message: a screen reader's list of buttons is not "Re-drive" × 50.
  const form = (
    id: string,
    label: string,
    name: string,
  ) => html`<form method="post" action="/ui/queue/redrive">
      ${csrfInput(csrf)}<input type="hidden" name="queue" value="${queue}" /><input type="hidden" name="id" value="${id}" />
      <button type="submit" class="secondary" aria-label="${name}">${label}</button></form>`;
  const all = `Re-drive all of ${queue}`;
  return html`<section class="card" aria-label="Dead letters of ${queue}">
    <h2>Dead letters of <code>${queue}</code></h2>
    ${total > dead.length ? html`<p class="tone-muted">Showing ${dead.length} of ${total} dead letters.</p>` : ""}
    <div class="actions">${form("all", all, all)}</div>
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">Message</th><th scope="col">Created</th><th scope="col" class="num">Attempts</th>
        <th scope="col">Last error</th><th scope="col" class="hide-narrow">Payload</th><th scope="col">Action</th></tr></thead>
      <tbody>${dead.map(
        (
          m,
        ) => html`<tr><td><code>${m.id}</code></td><td>${m.createdAt}</td><td class="num">${m.attempts}</td>
          <td>${m.lastError ? redactText(m.lastError) : ""}</td><td class="hide-narrow"><pre>${prettyJson(redactSecrets(m.payload))}</pre></td><td>${form(m.id, "Re-drive", `Re-drive message ${m.id}`)}</td></tr>`,
      )}</tbody>
    </table></div>
  </section>`;
}

/** Every known queue with its figures (empty ones included), then the dead letters. */
async function queueBody(services: ServerServices, queue: Queue, csrf: string): Promise<Html> {
  const byName = new Map((await queue.stats()).map((s) => [s.queue, s]));
  const names = [...new Set([...knownQueues(services), ...byName.keys()])];
  const empty = { queued: 0, active: 0, deadLettered: 0, oldestQueuedAgeSeconds: 0 };
  const rows: QueueStats[] = names.map((q) => byName.get(q) ?? { queue: q, ...empty });
  const dead = await Promise.all(
    rows
      .filter((r) => r.deadLettered > 0)
      .map(async (r) => ({
        queue: r.queue,
        total: r.deadLettered,
        dead: await queue.deadLetters(r.queue, { limit: DEAD_SHOWN }),
      })),
  );
  const row = (r: QueueStats) => html`<tr><th scope="row">${r.queue}</th>
    <td class="num">${r.queued}</td><td class="num">${r.active}</td>
    <td class="num${r.deadLettered > 0 ? " tone-bad" : ""}">${r.deadLettered}</td>
    <td class="num">${r.queued > 0 ? shortDuration(r.oldestQueuedAgeSeconds * 1000) : "—"}</td></tr>`;
  return html`<h1>Queue <span class="tone-muted">(${queue.engine})</span></h1>
    <div class="table-wrap"><table id="queues">
      <thead><tr><th scope="col">Queue</th><th scope="col" class="num">Waiting</th><th scope="col" class="num">Active</th>
        <th scope="col" class="num">Dead letters</th><th scope="col" class="num">Oldest waiting</th></tr></thead>
      <tbody>${rows.map(row)}</tbody>
    </table></div>
    ${dead.length === 0 ? html`<p class="card">No dead letters.</p>` : dead.map((d) => deadTable(d.queue, d.dead, d.total, csrf))}`;
}

/** `GET /ui/queue`, `POST /ui/queue/redrive` (confirmation first). */
export function registerQueue(app: UiApp, services: ServerServices, page: PageShell): void {
  app.get("/ui/queue", async (c) => {
    const { queue } = services;
    if (!queue)
      return c.html(
        page(c, {
          title: "Queue",
          section: "queue",
          body: html`<h1>Queue</h1><p>No queue is open.</p>`,
        }),
      );
    return c.html(
      page(c, {
        title: "Queue",
        section: "queue",
        body: await queueBody(services, queue, c.get("csrf")),
      }),
    );
  });

  app.post("/ui/queue/redrive", async (c) => {
    const { queue } = services;
    const body = await c.req.parseBody();
    const name = typeof body.queue === "string" ? body.queue : "";
    const id = typeof body.id === "string" ? body.id : "";
    if (!queue) uiError(409, "no queue is open in this process");
    if (!knownQueues(services).includes(name) || id === "")
      uiError(400, "unknown queue or message");
    if (body.confirmed !== "yes") {
      const question =
        id === "all"
          ? `Re-drive every dead letter of ${name}?`
          : `Re-drive dead letter ${id} of ${name}?`;
      return c.html(
        page(c, {
          title: "Confirm re-drive",
          section: "queue",
          body: confirmBody({
            question,
            action: "/ui/queue/redrive",
            fields: { queue: name, id },
            confirmLabel: "Re-drive",
            cancel: "/ui/queue",
            csrf: c.get("csrf"),
          }),
        }),
      );
    }
    const moved = await queue.retryDead(name, id === "all" ? "all" : [id]);
    setFlash(c, `Re-drove ${moved.length} message(s) of ${name}.`);
    return c.redirect("/ui/queue", 303);
  });
}
