import { html } from "hono/html";
import type { JobRecord } from "../../../engine/jobs/job-repo.ts";
import { csrfInput } from "../layout.ts";
import type { Html } from "../ui-env.ts";

const enc = encodeURIComponent;

/** A link to a job's page. */
export function jobLink(name: string): Html {
  return html`<a href="/ui/jobs/${enc(name)}">${name}</a>`;
}

/**
 * Run now and enable/disable for a job; `back` is the page the form returns to. The buttons
 * have ids, so htmx gives focus back to them after each refresh.
 */
export function jobActions(job: JobRecord, csrf: string, back: string): Html {
  return html`<div class="actions">
      <form method="post" action="/ui/jobs/${enc(job.name)}/run">${csrfInput(csrf)}
        <button type="submit" id="run-${job.name}" aria-label="Run ${job.name} now">Run now</button></form>
      <form method="post" action="/ui/jobs/${enc(job.name)}/enabled">${csrfInput(csrf)}
        <input type="hidden" name="enabled" value="${job.enabled ? "false" : "true"}" />
        <input type="hidden" name="back" value="${back}" />
        <button type="submit" class="secondary" id="toggle-${job.name}" aria-label="${job.enabled ? "Disable" : "Enable"} ${job.name}">${job.enabled ? "Disable" : "Enable"}</button></form>
    </div>`;
}
