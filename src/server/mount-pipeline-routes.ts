import { createRoute, type OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import type { RouteServices, RouteSpec } from "../engine/registry/route-spec.ts";
import { ErrorSchema } from "./schemas.ts";

function request(spec: RouteSpec): RouteConfig["request"] {
  const req: NonNullable<RouteConfig["request"]> = {};
  if (spec.params) req.params = spec.params;
  if (spec.query) req.query = spec.query;
  if (spec.body) {
    // A body schema that accepts undefined (`.optional()`) makes the body optional.
    const required = !spec.body.safeParse(undefined).success;
    req.body = { required, content: { "application/json": { schema: spec.body } } };
  }
  return req;
}

/** Every answer a route can give, for /openapi.json: its success, the usual errors, its own. */
function responses(spec: RouteSpec): RouteConfig["responses"] {
  const error = (description: string, schema: z.ZodType = ErrorSchema) => ({
    description,
    content: { "application/json": { schema } },
  });
  const out: RouteConfig["responses"] = {
    [spec.status ?? 200]: error(spec.summary, spec.response),
    401: error("Missing or wrong bearer token"),
    500: error("Internal error (details in the server log)"),
  };
  if (spec.params || spec.query || spec.body) out[400] = error("Invalid request");
  if (spec.params) out[404] = error("Not found");
  for (const [status, e] of Object.entries(spec.errors ?? {})) {
    out[status] = error(e.description, e.schema);
  }
  return out;
}

/** Turns a pipeline's route descriptors into OpenAPI routes on `app` (validated, documented). */
export function mountPipelineRoutes(
  app: OpenAPIHono,
  tag: string,
  specs: readonly RouteSpec[],
  services: RouteServices,
): void {
  for (const spec of specs) {
    const route = createRoute({
      method: spec.method,
      path: spec.path,
      summary: spec.summary,
      tags: [tag],
      request: request(spec),
      responses: responses(spec),
    });
    // The handler's input was validated by the route's schemas; hono's types per route are
    // generic over each spec, so the registration goes through `never` once here.
    app.openapi(route, (async (c: {
      req: { valid(target: "param" | "query" | "json"): unknown };
      json(body: unknown, status: ContentfulStatusCode): Response;
    }) => {
      const out = await spec.handle(
        {
          params: spec.params ? (c.req.valid("param") as Record<string, unknown>) : {},
          query: spec.query ? (c.req.valid("query") as Record<string, unknown>) : {},
          body: spec.body ? c.req.valid("json") : undefined,
        },
        services,
      );
      return c.json(out.body, (out.status ?? 200) as ContentfulStatusCode);
    }) as never);
  }
}
