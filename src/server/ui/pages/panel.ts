import { html } from "hono/html";
import type { PipelineDefinition } from "../../../engine/registry/pipeline-definition.ts";
import { formatZodIssues } from "../../../infra/config/format-zod-issues.ts";
import type { ServerServices } from "../../server-services.ts";
import { setFlash } from "../auth-middleware.ts";
import { panelServices } from "../data/panel-services.ts";
import { renderPanel } from "../render-panel.ts";
import type { UiApp } from "../ui-env.ts";
import { confirmBody } from "./confirm.ts";
import { uiError } from "./error-page.ts";
import type { PageShell } from "./page-shell.ts";

/** `GET /ui/pipelines/:name` (the pipeline's panel) and `POST …/actions/:action`. */
export function registerPanels(app: UiApp, services: ServerServices, page: PageShell): void {
  const panelOf = (name: string): PipelineDefinition | undefined =>
    services.runtime.registry.pipelines.find((p) => p.name === name && p.panel);

  app.get("/ui/pipelines/:name", async (c) => {
    const pipeline = panelOf(c.req.param("name"));
    if (!pipeline?.panel)
      return uiError(404, `no panel named ${JSON.stringify(c.req.param("name"))}`);
    const module = await pipeline.panel.load();
    const view = await module.view(panelServices(services.runtime, services.queue, pipeline.name));
    return c.html(
      page(c, {
        title: pipeline.panel.title,
        section: `pipeline:${pipeline.name}`,
        body: html`<h1>${pipeline.panel.title}</h1>
          <p class="tone-muted">${pipeline.description}</p>
          <div id="panel" data-pipeline="${pipeline.name}">${renderPanel(view, pipeline.name, c.get("csrf"))}</div>`,
      }),
    );
  });

  app.post("/ui/pipelines/:name/actions/:action", async (c) => {
    const pipeline = panelOf(c.req.param("name"));
    if (!pipeline?.panel)
      return uiError(404, `no panel named ${JSON.stringify(c.req.param("name"))}`);
    const back = `/ui/pipelines/${pipeline.name}`;
    const actionName = c.req.param("action");
    const action = (await pipeline.panel.load()).actions?.[actionName];
    if (!action) uiError(404, `unknown action ${JSON.stringify(actionName)}`);
    const form = await c.req.parseBody();
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(form)) {
      if (typeof v === "string" && k !== "_csrf" && k !== "confirmed") fields[k] = v;
    }
    const parsed = action.input.safeParse(fields);
    if (!parsed.success)
      uiError(400, formatZodIssues(`action ${actionName}`, parsed.error, fields));
    const input = parsed.data as Record<string, unknown>;
    if (action.confirm && form.confirmed !== "yes") {
      return c.html(
        page(c, {
          title: "Confirm",
          section: `pipeline:${pipeline.name}`,
          body: confirmBody({
            question: action.confirm(input),
            action: c.req.path,
            fields,
            confirmLabel: "Yes, do it",
            cancel: back,
            csrf: c.get("csrf"),
          }),
        }),
      );
    }
    setFlash(
      c,
      await action.run(input, panelServices(services.runtime, services.queue, pipeline.name)),
    );
    return c.redirect(back, 303);
  });
}
