import { html } from "hono/html";
import type { Queue, QueueMessageInfo } from "../../../engine/queue/queue.ts";
import { redactSecrets, redactText } from "../../../infra/logging/redact.ts";
import type { ServerServices } from "../../server-services.ts";
import { setFlash } from "../auth-middleware.ts";
import { knownQueues } from "../data/dashboard-data.ts";
import { MESSAGES_SHOWN, type QueueView, queueViews } from "../data/queue-data.ts";
import { childState } from "../data/run-children-data.ts";
import {
  errorExcerpt,
  prettyJson,
  relative,
  shortDuration,
  TIME_ZONE_LABEL,
  utcTime,
} from "../format.ts";
import { csrfInput } from "../layout.ts";
import type { Html, UiApp, UiContext } from "../ui-env.ts";
import { confirmBody } from "./confirm.ts";
import { uiError } from "./error-page.ts";
import type { PageShell } from "./page-shell.ts";

const TONE: Record<string, string> = {
  dead: "tone-bad",
  retrying: "tone-bad",
  active: "tone-warn",
};

/** A button posting one message id (or `all`) of a queue; its label names the message. */
function messageForm(
  action: string,
  queue: string,
  id: string,
  label: string,
  name: string,
  csrf: string,
) {
  return html`<form method="post" action="/ui/queue/${action}">
      ${csrfInput(csrf)}<input type="hidden" name="queue" value="${queue}" /><input type="hidden" name="id" value="${id}" />
      <button type="submit" class="${action === "delete" ? "danger" : "secondary"}" aria-label="${name}">${label}</button></form>`;
}

function messageRow(queue: string, m: QueueMessageInfo, now: Date, csrf: string): Html {
  const state = childState(m);
  return html`<tr data-message="${m.id}" data-state="${state}">
    <td><code>${m.id}</code><details class="hide-narrow"><summary>payload</summary><pre>${prettyJson(redactSecrets(m.payload))}</pre></details></td>
    <td class="${TONE[state] ?? ""}" data-label="State">${state}</td>
    <td class="num" data-label="Attempts">${m.attempts}</td>
    <td class="error-cell" data-label="Last error">${m.lastError ? errorExcerpt(redactText(m.lastError), 300) : ""}</td>
    <td data-label="Next attempt">${m.nextAttemptAt ? html`${utcTime(m.nextAttemptAt)}<span class="sub">${relative(m.nextAttemptAt, now)}</span>` : "—"}</td>
    <td data-label="Age">${shortDuration(now.getTime() - Date.parse(m.createdAt))}</td>
    <td><div class="actions">
      ${state === "dead" ? messageForm("redrive", queue, m.id, "Re-drive", `Re-drive message ${m.id}`, csrf) : ""}
      ${state !== "active" ? messageForm("delete", queue, m.id, "Delete", `Delete message ${m.id}`, csrf) : ""}
    </div></td>
  </tr>`;
}

/** One queue: its figures, its newest messages and the buttons on them. */
function queueSection(v: QueueView, now: Date, csrf: string): Html {
  const q = v.stats.queue;
  const fig = (label: string, n: number | string, tone = "") =>
    html`<li><span class="label">${label}</span><span class="value ${tone}" data-figure="${label}">${n}</span></li>`;
  const all = `Re-drive every dead letter of ${q}`;
  return html`<section class="card queue" id="queue-${q}" aria-label="Queue ${q}">
    <h2><code>${q}</code></h2>
    <ul class="stats">
      ${fig("waiting", v.waiting)}${fig("active", v.stats.active)}
      ${fig("retrying", v.retrying, v.retrying > 0 ? "tone-bad" : "")}${fig("dead", v.stats.deadLettered, v.stats.deadLettered > 0 ? "tone-bad" : "")}
      ${fig("oldest waiting", v.stats.queued > 0 ? shortDuration(v.stats.oldestQueuedAgeSeconds * 1000) : "—")}
    </ul>
    ${v.stats.deadLettered > 0 ? html`<div class="actions">${messageForm("redrive", q, "all", "Re-drive all dead", all, csrf)}</div>` : ""}
    ${
      v.messages.length === 0
        ? html`<p class="tone-muted">No messages waiting, active or dead.</p>`
        : html`${
            v.stats.queued + v.stats.active + v.stats.deadLettered > v.messages.length
              ? html`<p class="tone-muted">The newest ${v.messages.length} messages.</p>`
              : ""
          }<div class="table-wrap"><table class="messages stack-narrow">
      <thead><tr><th scope="col">Message</th><th scope="col">State</th><th scope="col" class="num">Attempts</th>
        <th scope="col">Last error</th><th scope="col">Next attempt</th><th scope="col">Age</th><th scope="col">Actions</th></tr></thead>
      <tbody>${v.messages.map((m) => messageRow(q, m, now, csrf))}</tbody></table></div>`
    }
  </section>`;
}

async function queueBody(services: ServerServices, queue: Queue, csrf: string): Promise<Html> {
  const now = services.runtime.clock.now();
  const views = await queueViews(services, queue);
  const busy = views.filter((v) => v.messages.length > 0);
  const idle = views.filter((v) => v.messages.length === 0).map((v) => v.stats.queue);
  return html`<h1>Queue <span class="tone-muted">(${queue.engine})</span></h1>
    <p class="tone-muted">Per queue: messages waiting, held by a worker, waiting for a retry after a failure, and dead
      (out of attempts); the newest ${MESSAGES_SHOWN} of each. Times in ${TIME_ZONE_LABEL}.</p>
    ${busy.length === 0 ? html`<p class="card">Every queue is empty.</p>` : busy.map((v) => queueSection(v, now, csrf))}
    ${idle.length > 0 ? html`<p class="tone-muted" id="idle-queues">Empty: ${idle.join(", ")}.</p>` : ""}`;
}

/** Reads the queue and id of a message form; refuses an unknown queue or no id. */
async function messageTarget(services: ServerServices, body: Record<string, unknown>) {
  const name = typeof body.queue === "string" ? body.queue : "";
  const id = typeof body.id === "string" ? body.id : "";
  if (!services.queue) uiError(409, "no queue is open in this process");
  if (!knownQueues(services).includes(name) || id === "") uiError(400, "unknown queue or message");
  return { queue: services.queue, name, id };
}

/** The confirmation page of a change to one queue message (or all of a queue's dead). */
function confirmPage(
  c: UiContext,
  page: PageShell,
  o: { question: string; action: string; label: string; fields: Record<string, string> },
) {
  return c.html(
    page(c, {
      title: `Confirm ${o.label.toLowerCase()}`,
      section: "queue",
      body: confirmBody({
        question: o.question,
        action: o.action,
        fields: o.fields,
        confirmLabel: o.label,
        cancel: "/ui/queue",
        csrf: c.get("csrf"),
      }),
    }),
  );
}

/** `POST /ui/queue/delete`: deletes a waiting or dead message, after a confirmation. */
function registerDelete(app: UiApp, services: ServerServices, page: PageShell): void {
  app.post("/ui/queue/delete", async (c) => {
    const body = await c.req.parseBody();
    const { queue, name, id } = await messageTarget(services, body);
    if (id === "all") uiError(400, "delete takes one message id");
    if (body.confirmed !== "yes") {
      const question = `Delete message ${id} of ${name} for good? Its work will not be done.`;
      const fields = { queue: name, id };
      return confirmPage(c, page, {
        question,
        action: "/ui/queue/delete",
        label: "Delete",
        fields,
      });
    }
    const deleted = await queue.deleteMessages(name, [id]);
    setFlash(
      c,
      deleted.length === 1
        ? `Deleted message ${id} of ${name}.`
        : `Message ${id} of ${name} was not deleted: it is gone, or a worker holds it now.`,
      deleted.length !== 1,
    );
    return c.redirect("/ui/queue", 303);
  });
}

/** `GET /ui/queue`, `POST /ui/queue/redrive` and `POST /ui/queue/delete` (confirmation first). */
export function registerQueue(app: UiApp, services: ServerServices, page: PageShell): void {
  app.get("/ui/queue", async (c) => {
    const { queue } = services;
    const body = queue
      ? await queueBody(services, queue, c.get("csrf"))
      : html`<h1>Queue</h1><p>No queue is open.</p>`;
    return c.html(page(c, { title: "Queue", section: "queue", body }));
  });

  app.post("/ui/queue/redrive", async (c) => {
    const body = await c.req.parseBody();
    const { queue, name, id } = await messageTarget(services, body);
    if (body.confirmed !== "yes") {
      const question =
        id === "all"
          ? `Re-drive every dead letter of ${name}?`
          : `Re-drive dead letter ${id} of ${name}?`;
      const fields = { queue: name, id };
      return confirmPage(c, page, {
        question,
        action: "/ui/queue/redrive",
        label: "Re-drive",
        fields,
      });
    }
    const moved = await queue.retryDead(name, id === "all" ? "all" : [id]);
    setFlash(c, `Re-drove ${moved.length} message(s) of ${name}.`);
    return c.redirect("/ui/queue", 303);
  });
  registerDelete(app, services, page);
}
