import { swaggerUI } from "@hono/swagger-ui";
import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { pipelineServices } from "../engine/runs/pipeline-services.ts";
import type { Logger } from "../infra/logging/logger.ts";
import { bearerAuth } from "./auth.ts";
import { emptyJsonBody } from "./empty-json-body.ts";
import { errorHandler, errorResponse, notFoundHandler, validationHook } from "./errors.ts";
import { mountPipelineRoutes } from "./mount-pipeline-routes.ts";
import { registerJobRoutes } from "./routes/job-routes.ts";
import { registerRunRoutes } from "./routes/run-routes.ts";
import { registerSystemRoutes } from "./routes/system-routes.ts";
import type { ServerServices, SystemServices } from "./server-services.ts";
import { createUiApp, isUiPath } from "./ui/index.ts";

/** A router with the API's validation hook (400 + zod issues). */
export function newRouter(): OpenAPIHono {
  return new OpenAPIHono({ defaultHook: validationHook });
}

/**
 * Error handling, bearer auth (when tokens are given) and the request body limit, shared by
 * both apps. The limit comes after auth, so an unauthenticated body is never read either.
 */
function baseApp(services: SystemServices, logger: Logger, ui = false): OpenAPIHono {
  const app = newRouter();
  app.onError(errorHandler(logger));
  app.notFound(notFoundHandler);
  if (services.apiTokens !== undefined) {
    const bearer = bearerAuth(services.apiTokens);
    // The dashboard (and `/`, which redirects to it) has its own sign-in: a session cookie.
    app.use("*", (c, next) =>
      ui && (c.req.path === "/" || isUiPath(c.req.path)) ? next() : bearer(c, next),
    );
  }
  const maxSize = services.runtime.config?.bodyLimitBytes ?? 1024 * 1024;
  app.use(
    "*",
    bodyLimit({
      maxSize,
      onError: (c) =>
        errorResponse(
          c,
          413,
          "payload_too_large",
          `request body over ${maxSize} bytes (server.body_limit_bytes)`,
        ),
    }),
  );
  app.use("*", emptyJsonBody);
  return app;
}

/**
 * The system routes alone (`GET /healthz` open, `GET /metrics` behind the tokens): what a
 * `tidemark worker` serves with `--metrics-port`, so its own runs and requests are scraped.
 */
export function createSystemApp(services: SystemServices, logger: Logger): OpenAPIHono {
  const app = baseApp(services, logger);
  registerSystemRoutes(app, services);
  return app;
}

/**
 * The HTTP API: bearer auth on everything but `GET /healthz`, the engine's routes, every
 * pipeline's routes under `/api/<pipeline>`, `/openapi.json` and the Swagger UI at `/docs`.
 * Every error, including 404 and 401, is JSON. Beside it, the dashboard under `/ui` (`/`
 * redirects there), with its own sign-in and HTML pages.
 */
export function createApp(services: ServerServices, logger: Logger): OpenAPIHono {
  const app = baseApp(services, logger, true);
  app.get("/", (c) => c.redirect("/ui", 302));
  app.route("/", createUiApp(services, logger));
  registerSystemRoutes(app, services);
  registerJobRoutes(app, services);
  registerRunRoutes(app, services);

  for (const pipeline of services.runtime.registry.pipelines) {
    if (!pipeline.routes) continue;
    const routeServices = {
      runtime: services.runtime,
      queue: services.queue,
      services: pipelineServices(services.runtime, pipeline.name, { queue: services.queue }),
    };
    const own = pipeline.routes.filter((r) => r.mount !== "api");
    const top = pipeline.routes.filter((r) => r.mount === "api");
    const sub = newRouter();
    mountPipelineRoutes(sub, pipeline.name, own, routeServices);
    app.route(`/api/${pipeline.name}`, sub);
    if (top.length > 0) {
      const apiSub = newRouter();
      mountPipelineRoutes(apiSub, pipeline.name, top, routeServices);
      app.route("/api", apiSub);
    }
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
