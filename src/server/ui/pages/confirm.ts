import { html } from "hono/html";
import { csrfInput } from "../layout.ts";
import type { Html } from "../ui-env.ts";

/** A confirmation form: re-posts `fields` with `confirmed=yes`, or goes back to `cancel`. */
export function confirmBody(o: {
  question: string;
  action: string;
  fields: Readonly<Record<string, string>>;
  confirmLabel: string;
  cancel: string;
  csrf: string;
}): Html {
  return html`<section class="card" aria-labelledby="confirm-title">
    <h1 id="confirm-title">${o.question}</h1>
    <form method="post" action="${o.action}" class="actions">
      ${csrfInput(o.csrf)}
      ${Object.entries(o.fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}
      <input type="hidden" name="confirmed" value="yes" />
      <button type="submit" class="danger" autofocus>${o.confirmLabel}</button>
      <a class="button secondary" href="${o.cancel}">Cancel</a>
    </form>
  </section>`;
}
