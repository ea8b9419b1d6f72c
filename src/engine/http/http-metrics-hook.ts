import type { HttpRequestEvent } from "./http-client-types.ts";

/** What the hook forwards to (TidemarkMetrics implements it). */
export interface HttpMetricsSink {
  recordHttp(event: HttpRequestEvent): void;
}

let sink: HttpMetricsSink | undefined;

/**
 * Process-wide request hook that every HttpClient calls: it records into the metrics of the
 * running `serve`/`worker` process, and does nothing in processes without metrics (CLI runs).
 * Kept free of prom-client so the HTTP layer can import it cheaply.
 */
export function httpMetricsHook(event: HttpRequestEvent): void {
  sink?.recordHttp(event);
}

/** Makes `httpMetricsHook` record into `metrics`; returns the function that undoes it. */
export function useProcessMetrics(metrics: HttpMetricsSink): () => void {
  sink = metrics;
  return () => {
    if (sink === metrics) sink = undefined;
  };
}
