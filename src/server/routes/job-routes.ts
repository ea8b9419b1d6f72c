import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { NotFoundError } from "../../engine/errors.ts";
import { JobRepo } from "../../engine/jobs/job-repo.ts";
import { latestRun } from "../../engine/runs/job-overview.ts";
import { runAsOfNow } from "../../engine/runs/run-liveness.ts";
import {
  ErrorSchema,
  JobDetailSchema,
  JobSchema,
  QueuedRunSchema,
  RunRequestBodySchema,
} from "../schemas.ts";
import type { ServerServices } from "../server-services.ts";
import { jobView, runView } from "./views.ts";

const json = <T>(schema: T) => ({ "application/json": { schema } });
const errors = {
  400: { description: "Invalid request", content: json(ErrorSchema) },
  401: { description: "Missing or wrong bearer token", content: json(ErrorSchema) },
};
const NameParam = z.object({
  name: z
    .string()
    .min(1)
    .openapi({ param: { name: "name", in: "path" }, example: "nightly-books" }),
});

const listRoute = createRoute({
  method: "get",
  path: "/api/jobs",
  tags: ["jobs"],
  summary: "List jobs",
  responses: {
    200: {
      description: "Every job, by name",
      content: json(z.object({ jobs: z.array(JobSchema) })),
    },
    401: errors[401],
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/api/jobs/{name}",
  tags: ["jobs"],
  summary: "One job with its latest run",
  request: { params: NameParam },
  responses: {
    200: { description: "The job", content: json(JobDetailSchema) },
    ...errors,
    404: { description: "Unknown job", content: json(ErrorSchema) },
  },
});

const IdempotencyHeader = z.object({
  "idempotency-key": z
    .string()
    .optional()
    .openapi({
      param: { name: "idempotency-key", in: "header" },
      description:
        "Any unique string (a UUID): retrying with the same key answers the run the first attempt queued, for 24 hours, instead of queuing another",
      example: "5f1b0c2e-8f0a-4d8e-9a51-3d2c7a4b9e10",
    }),
});

const runRoute = createRoute({
  method: "post",
  path: "/api/jobs/{name}/runs",
  tags: ["jobs"],
  summary: "Queue a run of a job; a worker executes it",
  request: {
    params: NameParam,
    headers: IdempotencyHeader,
    body: { required: false, content: json(RunRequestBodySchema) },
  },
  responses: {
    202: {
      description:
        "Queued; poll the Location (GET /api/runs/{run_id}). A retry with the same Idempotency-Key answers the same run, with `Idempotent-Replayed: true`",
      content: json(QueuedRunSchema),
    },
    ...errors,
    404: { description: "Unknown job", content: json(ErrorSchema) },
    409: {
      description: "The first request with this Idempotency-Key is still being queued; retry",
      content: json(ErrorSchema),
    },
    415: { description: "A body that is not application/json", content: json(ErrorSchema) },
    422: {
      description: "This Idempotency-Key was first used for another job or other options",
      content: json(ErrorSchema),
    },
  },
});

/** `GET /api/jobs`, `GET /api/jobs/{name}`, `POST /api/jobs/{name}/runs`. */
export function registerJobRoutes(app: OpenAPIHono, services: ServerServices): void {
  const { runtime } = services;
  const findJob = async (name: string) => {
    const job = await new JobRepo(runtime.db).get(name);
    if (!job) throw new NotFoundError(`unknown job ${JSON.stringify(name)}`);
    return job;
  };

  app.openapi(listRoute, async (c) => {
    const now = runtime.clock.now();
    const jobs = await new JobRepo(runtime.db).list();
    return c.json({ jobs: jobs.map((j) => jobView(j, now)) }, 200);
  });

  app.openapi(getRoute, async (c) => {
    const job = await findJob(c.req.valid("param").name);
    const last = await latestRun(runtime.db, job.name);
    return c.json(
      {
        ...jobView(job, runtime.clock.now()),
        lastRun: last ? runView(await runAsOfNow(runtime, last)) : null,
      },
      200,
    );
  });

  app.openapi(runRoute, async (c) => {
    const job = await findJob(c.req.valid("param").name);
    const body = c.req.valid("json") ?? {};
    const key = c.req.valid("header")["idempotency-key"];
    const options = { dryRun: body.dryRun, limit: body.limit };
    const queued = await services.requestRun(job, options, key);
    c.header("Location", `/api/runs/${encodeURIComponent(queued.runId)}`);
    if (queued.replayed) c.header("Idempotent-Replayed", "true");
    const { runId, messageId, jobName, dryRun, limit } = queued;
    return c.json(
      // `run_id` too: the name the run webhook's payload uses for the same id.
      { runId, run_id: runId, messageId, jobName, status: "queued" as const, dryRun, limit },
      202,
    );
  });
}
