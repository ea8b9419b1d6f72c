import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { typed } from "../../infra/db/open-database.ts";
import { silentLogger } from "../../infra/logging/logger.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { lintExposition } from "../../testing/exposition-lint.ts";
import { openTestRuntime } from "../../testing/test-runtime.ts";
import type { EngineTables } from "../engine-tables.ts";
import { startFakeServer } from "../fakes/fake-server.ts";
import { HttpClient } from "../http/http-client.ts";
import type { HttpRequestEvent } from "../http/http-client-types.ts";
import { RunEvents } from "../notify/run-events.ts";
import type { Queue, QueueStats } from "../queue/queue.ts";
import { TidemarkMetrics } from "./tidemark-metrics.ts";

const ended = (over: Partial<Parameters<RunEvents["emitRunEnded"]>[0]> = {}) => ({
  runId: "a_20260101T000000Z_abcdef",
  jobName: "a",
  jobType: "test.echo",
  status: "succeeded" as const,
  startedAt: "2026-01-01T00:00:00.000Z",
  finishedAt: "2026-01-01T00:00:02.500Z",
  error: null,
  dryRun: false,
  ...over,
});

const attempt = (over: Partial<HttpRequestEvent>): HttpRequestEvent => ({
  host: "api.example:443",
  method: "GET",
  status: 200,
  attempt: 1,
  durationMs: 5,
  outcome: "ok",
  ...over,
});

/** A Queue whose only working method is stats(). */
function statsQueue(stats: () => Promise<QueueStats[]>): Queue {
  return { engine: "embedded", stats } as unknown as Queue;
}

describe("metrics", () => {
  it("counts ended runs by job and status and observes their duration", async () => {
    const m = new TidemarkMetrics();
    const events = new RunEvents(silentLogger());
    m.observeRuns(events);
    events.emitRunEnded(ended());
    events.emitRunEnded(ended({ status: "failed", error: "x" }));
    events.emitRunEnded(ended({ jobName: "b", status: "abandoned" }));
    const text = await m.text();
    expect(text).toContain('tidemark_runs_total{job="a",status="succeeded"} 1');
    expect(text).toContain('tidemark_runs_total{job="a",status="failed"} 1');
    expect(text).toContain('tidemark_runs_total{job="b",status="abandoned"} 1');
    expect(text).toContain(
      'tidemark_run_duration_seconds_bucket{le="5",job="a",status="succeeded"} 1',
    );
    expect(text).toContain(
      'tidemark_run_duration_seconds_bucket{le="1",job="a",status="succeeded"} 0',
    );
    expect(text).toContain('tidemark_run_duration_seconds_sum{job="a",status="succeeded"} 2.5');
  });

  it("two instances never share counters (own registry, not the global one)", async () => {
    const a = new TidemarkMetrics();
    const b = new TidemarkMetrics();
    a.recordHttp(attempt({}));
    expect(await a.text()).toContain("tidemark_http_client_requests_total{");
    expect(await b.text()).not.toContain('host="api.example:443"');
  });

  it("records source-client attempts reported to the process's events, retries separately", async () => {
    const m = new TidemarkMetrics();
    const events = new RunEvents(silentLogger());
    events.emitHttpRequest(attempt({})); // nothing listening yet: ignored
    const undo = events.onHttpRequest((event) => m.recordHttp(event));
    events.emitHttpRequest(attempt({ status: 503, outcome: "retry" }));
    events.emitHttpRequest(attempt({ status: undefined, attempt: 2, outcome: "retry" }));
    events.emitHttpRequest(attempt({ attempt: 3 }));
    undo();
    events.emitHttpRequest(attempt({}));
    const text = await m.text();
    expect(text).toContain(
      'tidemark_http_client_requests_total{host="api.example:443",status="503",outcome="retry"} 1',
    );
    expect(text).toContain(
      'tidemark_http_client_requests_total{host="api.example:443",status="none",outcome="retry"} 1',
    );
    expect(text).toContain(
      'tidemark_http_client_requests_total{host="api.example:443",status="200",outcome="ok"} 1',
    );
    expect(text).toContain('tidemark_http_client_retries_total{host="api.example:443"} 2');
  });

  it("a client whose onRequest is a pipeline's reportHttpRequest feeds the process metrics", async () => {
    const m = new TidemarkMetrics();
    const server = await startFakeServer(() => Response.json({ ok: true }), {
      faults: { statusSequence: [500] },
    });
    const events = new RunEvents(silentLogger());
    const undo = events.onHttpRequest((event) => m.recordHttp(event));
    try {
      const client = new HttpClient({
        logger: silentLogger(),
        userAgent: "t",
        retry: { maxAttempts: 2, baseDelayMs: 1 },
        onRequest: (event) => events.emitHttpRequest(event),
      });
      await client.getJson(`${server.url}/x`, { schema: z.object({ ok: z.boolean() }) });
    } finally {
      undo();
      await server.close();
    }
    const host = new URL(server.url).host;
    const text = await m.text();
    expect(text).toContain(
      `tidemark_http_client_requests_total{host="${host}",status="500",outcome="retry"} 1`,
    );
    expect(text).toContain(
      `tidemark_http_client_requests_total{host="${host}",status="200",outcome="ok"} 1`,
    );
  });

  it("reads queue depth and oldest age on scrape, once per scrape", async () => {
    let calls = 0;
    let depth = 3;
    const m = new TidemarkMetrics();
    m.watchQueue(
      statsQueue(async () => {
        calls++;
        return [
          { queue: "runs", queued: depth, active: 1, deadLettered: 2, oldestQueuedAgeSeconds: 42 },
        ];
      }),
    );
    let text = await m.text();
    expect(calls).toBe(1);
    expect(text).toContain('tidemark_queue_messages{queue="runs",state="queued"} 3');
    expect(text).toContain('tidemark_queue_messages{queue="runs",state="active"} 1');
    expect(text).toContain('tidemark_queue_messages{queue="runs",state="dead"} 2');
    expect(text).toContain('tidemark_queue_oldest_message_age_seconds{queue="runs"} 42');
    depth = 0;
    m.watchQueue(
      statsQueue(async () => [
        { queue: "runs", queued: depth, active: 0, deadLettered: 0, oldestQueuedAgeSeconds: 0 },
      ]),
    );
    text = await m.text();
    expect(text).toContain('tidemark_queue_messages{queue="runs",state="queued"} 0');
  });

  it("a failing queue leaves the scrape working, without stale queue figures", async () => {
    const m = new TidemarkMetrics();
    m.watchQueue(
      statsQueue(async () => [
        { queue: "runs", queued: 9, active: 0, deadLettered: 0, oldestQueuedAgeSeconds: 1 },
      ]),
    );
    expect(await m.text()).toContain('state="queued"} 9');
    m.watchQueue(
      statsQueue(async () => {
        throw new Error("db down");
      }),
    );
    const text = await m.text();
    expect(text).toContain("# TYPE tidemark_queue_messages gauge");
    expect(text).not.toContain('state="queued"} 9');
  });
});

/**
 * prom-client's default metrics that `promtool check metrics` flags: gauges with a counter's
 * `_total` suffix. Kept under prom-client's standard names (docs/server.md says why).
 */
const PROM_CLIENT_DEFAULTS_FLAGGED = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
];

describeEachDialect("metric names and HELP follow promtool's rules", (h) => {
  it("every Tidemark metric, each with samples, passes", async () => {
    const runtime = await openTestRuntime(h);
    await typed<EngineTables>(runtime.db)
      .insertInto("tm_runs")
      .values({
        run_id: "a_20260101T000000Z_abcdef",
        job_name: "a",
        job_type: "test.echo",
        status: "succeeded",
        started_at: "2026-01-01T00:00:00.000Z",
        finished_at: "2026-01-01T00:00:02.500Z",
        summary: null,
        error: null,
        dry_run: 0,
        lease_key: "job:a",
        host: "h",
        pid: 1,
      })
      .execute();
    const m = new TidemarkMetrics();
    const events = new RunEvents(silentLogger());
    m.observeRuns(events);
    events.emitRunEnded(ended());
    m.recordHttp(attempt({ outcome: "retry" }));
    m.watchQueue(
      statsQueue(async () => [
        { queue: "runs", queued: 1, active: 0, deadLettered: 0, oldestQueuedAgeSeconds: 3 },
      ]),
    );
    m.queueRetries.inc({ queue: "runs" });
    m.schedulerFires.inc({ job: "a", outcome: "queued" });
    m.watchRunHistory(runtime.db);
    const text = await m.text();
    const families = [...text.matchAll(/^# TYPE (\S+)/gm)].map((x) => x[1]);
    // Every family has at least one sample, so label names are checked too.
    for (const name of families) expect(text).toMatch(new RegExp(`^${name}(_bucket)?\\{`, "m"));
    expect(families).toContain("tidemark_job_last_run_timestamp_seconds");
    expect(lintExposition(text)).toEqual([]);
  });
});

describe("prom-client's default metrics", () => {
  it("add only the gauges docs/server.md lists as flagged by promtool", async () => {
    const text = await new TidemarkMetrics({ defaultMetrics: true }).text();
    expect(text).toContain("# TYPE process_cpu_seconds_total counter");
    const flagged = lintExposition(text).map((p) => p.split(":")[0]);
    expect(flagged.sort()).toEqual(PROM_CLIENT_DEFAULTS_FLAGGED);
    const docs = readFileSync(new URL("../../../docs/server.md", import.meta.url), "utf8");
    for (const name of PROM_CLIENT_DEFAULTS_FLAGGED) expect(docs).toContain(`\`${name}\``);
  });
});
