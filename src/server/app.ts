import { swaggerUI } from "@hono/swagger-ui";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Logger } from "../infra/logging/logger.ts";
import { bearerAuth } from "./auth.ts";
import { errorHandler, notFoundHandler, validationHook } from "./errors.ts";
import { registerJobRoutes } from "./routes/job-routes.ts";
import { registerRunRoutes } from "./routes/run-routes.ts";
import { registerSystemRoutes } from "./routes/system-routes.ts";
import type { ServerServices, SystemServices } from "./server-services.ts";

/** A router with the API's validation hook (400 + zod issues). */
export function newRouter(): OpenAPIHono {
  return new OpenAPIHono({ defaultHook: validationHook });
}

/** Error handling and bearer auth (when tokens are given) shared by both apps. */
function baseApp(apiTokens: readonly string[] | undefined, logger: Logger): OpenAPIHono {
  const app = newRouter();
  app.onError(errorHandler(logger));
  app.notFound(notFoundHandler);
  if (apiTokens !== undefined) app.use("*", bearerAuth(apiTokens));
  return app;
}

/**
 * The system routes alone (`GET /healthz` open, `GET /metrics` behind the tokens): what a
 * `tidemark worker` serves with `--metrics-port`, so its own runs and requests are scraped.
 */
export function createSystemApp(services: SystemServices, logger: Logger): OpenAPIHono {
  const app = baseApp(services.apiTokens, logger);
  registerSystemRoutes(app, services);
  return app;
}

/**
 * The HTTP API: bearer auth on everything but `GET /healthz`, the engine's routes, every
 * pipeline's routes under `/api/<pipeline>`, `/openapi.json` and the Swagger UI at `/docs`.
 * Every error, including 404 and 401, is JSON.
 */
export function createApp(services: ServerServices, logger: Logger): OpenAPIHono {
  const app = baseApp(services.apiTokens, logger);
  registerSystemRoutes(app, services);
  registerJobRoutes(app, services);
  registerRunRoutes(app, services);

  for (const pipeline of services.runtime.registry.pipelines) {
    if (!pipeline.routes) continue;
    const sub = newRouter();
    pipeline.routes(sub, { runtime: services.runtime, queue: services.queue });
    app.route(`/api/${pipeline.name}`, sub);
  }

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "A token from api_tokens / TIDEMARK_API_TOKENS",
  });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Tidemark API",
      version: "0.1.0",
      description: "Jobs, runs, health and metrics of a Tidemark installation.",
    },
    security: [{ bearer: [] }],
  });
  app.get("/docs", swaggerUI({ url: "/openapi.json", persistAuthorization: true }));
  return app;
}
