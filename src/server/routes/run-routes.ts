import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { NotFoundError } from "../../engine/errors.ts";
import { listRunsAsOfNow, runAsOfNow } from "../../engine/runs/run-liveness.ts";
import { RunRepo } from "../../engine/runs/run-repo.ts";
import { ErrorSchema, RequestedRunSchema, RunListQuerySchema, RunSchema } from "../schemas.ts";
import type { ServerServices } from "../server-services.ts";
import { runView } from "./views.ts";

const json = <T>(schema: T) => ({ "application/json": { schema } });

const listRoute = createRoute({
  method: "get",
  path: "/api/runs",
  tags: ["runs"],
  summary: "List runs, newest first",
  request: { query: RunListQuerySchema },
  responses: {
    200: { description: "Runs", content: json(z.object({ runs: z.array(RunSchema) })) },
    400: { description: "Invalid filter", content: json(ErrorSchema) },
    401: { description: "Missing or wrong bearer token", content: json(ErrorSchema) },
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/api/runs/{run_id}",
  tags: ["runs"],
  summary: "One run; a run requested over the API and not started yet shows as queued",
  request: {
    params: z.object({
      run_id: z
        .string()
        .min(1)
        .openapi({ param: { name: "run_id", in: "path" } }),
    }),
  },
  responses: {
    200: {
      description: "The run, or the request still waiting for a worker",
      content: json(z.union([RunSchema, RequestedRunSchema])),
    },
    401: { description: "Missing or wrong bearer token", content: json(ErrorSchema) },
    404: { description: "Unknown run (or queued and not started yet)", content: json(ErrorSchema) },
  },
});

/**
 * `GET /api/runs`, `GET /api/runs/{run_id}`. Reads only: a crashed run still recorded
 * `running` is shown `abandoned` (runAsOfNow) until its owner's sweep records it.
 */
export function registerRunRoutes(app: OpenAPIHono, services: ServerServices): void {
  const { runtime } = services;
  const repo = () => new RunRepo(runtime.db);

  app.openapi(listRoute, async (c) => {
    const q = c.req.valid("query");
    const runs = await listRunsAsOfNow(runtime, {
      jobName: q.job,
      status: q.status,
      limit: q.limit,
    });
    return c.json({ runs: runs.map(runView) }, 200);
  });

  app.openapi(getRoute, async (c) => {
    const { run_id } = c.req.valid("param");
    const run = await repo().get(run_id);
    if (run) return c.json(runView(await runAsOfNow(runtime, run)), 200);
    const requested = await services.findRequestedRun(run_id);
    if (requested) return c.json(requested, 200);
    throw new NotFoundError(`unknown run ${JSON.stringify(run_id)}`);
  });
}
