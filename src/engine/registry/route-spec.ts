import type { z } from "zod";
import type { PipelineServices } from "./pipeline-services.ts";

/** Services a pipeline's HTTP routes can use (`tidemark serve`). */
export interface RouteServices {
  /** The route's pipeline's services (its settings included); sends go to the process's queue. */
  readonly services: PipelineServices;
}

/** What a route handler receives, validated against the route's schemas. */
export interface RouteInput {
  readonly params: Record<string, unknown>;
  readonly query: Record<string, unknown>;
  readonly body: unknown;
}

/** A handler's answer: JSON `body` with `status` (default 200). */
export interface RouteOutput {
  readonly status?: number;
  readonly body: unknown;
}

/**
 * One HTTP route a pipeline adds, as a plain descriptor: `tidemark serve` mounts it under
 * `/api/<pipeline>` behind the API's bearer auth and lists it in /openapi.json.
 * `path` uses OpenAPI syntax (`/suppliers/{name}`); schemas are zod.
 */
export interface RouteSpec {
  readonly method: "get" | "post" | "put" | "patch" | "delete";
  readonly path: string;
  /**
   * Where `path` is mounted: below `/api/<pipeline>` (default), or below `/api` for a path that
   * must stay outside the pipeline's prefix (e.g. `/api/crawl/execute`).
   */
  readonly mount?: "pipeline" | "api";
  readonly summary: string;
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  /** Schema of a successful answer (documentation). */
  readonly response: z.ZodType;
  /** Status of a successful answer, for the documentation (default 200; e.g. 201 on create). */
  readonly status?: number;
  /**
   * Answers besides success and the ones every route has (400 on bad input, 401, 404 when the
   * path names something, 500), by status: what they mean and, when not the API's usual error
   * body, their schema (documentation).
   */
  readonly errors?: Readonly<Record<number, { description: string; schema?: z.ZodType }>>;
  handle(input: RouteInput, services: RouteServices): Promise<RouteOutput>;
}
