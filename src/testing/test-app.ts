import type { OpenAPIHono } from "@hono/zod-openapi";
import { TidemarkMetrics } from "../engine/metrics/tidemark-metrics.ts";
import type { Queue } from "../engine/queue/queue.ts";
import type { Runtime } from "../engine/runtime/runtime.ts";
import { silentLogger } from "../infra/logging/logger.ts";
import { createApp } from "../server/app.ts";

/**
 * The whole HTTP app (API and dashboard) over a test runtime, in-process: `tokens` undefined
 * means authentication off. Run requests are refused: a test that queues runs builds its own.
 */
export function testApp(
  runtime: Runtime,
  options: { queue?: Queue; tokens?: readonly string[] } = {},
): OpenAPIHono {
  return createApp(
    {
      runtime,
      queue: options.queue,
      metrics: new TidemarkMetrics(),
      apiTokens: options.tokens,
      requestRun: () => Promise.reject(new Error("run requests are not served by this test app")),
      findRequestedRun: async () => undefined,
    },
    silentLogger(),
  );
}
