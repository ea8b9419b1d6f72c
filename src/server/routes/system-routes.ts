import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { sql } from "kysely";
import { HealthSchema } from "../schemas.ts";
import type { SystemServices } from "../server-services.ts";

/** A health probe must answer even when a dependency hangs. */
const PROBE_TIMEOUT_MS = 5000;

async function probe(check: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check().then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

const healthRoute = createRoute({
  method: "get",
  path: "/healthz",
  tags: ["system"],
  summary: "Liveness and readiness: database and queue reachable (no token needed)",
  security: [],
  responses: {
    200: {
      description: "Everything reachable",
      content: { "application/json": { schema: HealthSchema } },
    },
    503: {
      description: "Database or queue unreachable",
      content: { "application/json": { schema: HealthSchema } },
    },
  },
});

const metricsRoute = createRoute({
  method: "get",
  path: "/metrics",
  tags: ["system"],
  summary: "Prometheus metrics of this process",
  responses: {
    200: {
      description: "Prometheus text exposition format",
      content: { "text/plain": { schema: z.string() } },
    },
  },
});

/** `GET /healthz`, `GET /metrics`. */
export function registerSystemRoutes(app: OpenAPIHono, services: SystemServices): void {
  app.openapi(healthRoute, async (c) => {
    const { runtime, queue } = services;
    const [dbOk, queueOk] = await Promise.all([
      probe(() => sql`select 1`.execute(runtime.db.kysely)),
      queue ? probe(() => queue.stats()) : Promise.resolve(false),
    ]);
    // Errors stay in the log: this route is public and messages may name hosts.
    if (!dbOk || !queueOk) runtime.logger.warn({ db: dbOk, queue: queueOk }, "health check failed");
    const ok = dbOk && queueOk;
    const body = {
      status: ok ? ("ok" as const) : ("unavailable" as const),
      db: { ok: dbOk },
      queue: { ok: queueOk, engine: queue?.engine ?? null },
    };
    return ok ? c.json(body, 200) : c.json(body, 503);
  });

  app.openapi(metricsRoute, async (c) => {
    const text = await services.metrics.text();
    return c.text(text, 200, { "content-type": services.metrics.contentType });
  });
}
