import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Database } from "../../infra/db/open-database.ts";
import type { Logger } from "../../infra/logging/logger.ts";
import type { HttpRequestEvent } from "../http/http-client-types.ts";
import type { RunEvents } from "../notify/run-events.ts";
import type { Queue, QueueStats } from "../queue/queue.ts";
import { registerRunHistoryGauges } from "./run-history-gauges.ts";

/** Run durations span seconds to hours. */
const RUN_DURATION_BUCKETS = [0.1, 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21_600];

/** One scrape reads Queue.stats() once, whichever gauge asks first. */
const QUEUE_STATS_TTL_MS = 1000;

/**
 * The process's Prometheus metrics, on a registry of their own (never prom-client's global
 * one, so two instances — e.g. two tests — never share counters).
 */
export class TidemarkMetrics {
  readonly registry = new Registry();
  readonly runs: Counter<"job" | "status">;
  readonly runDuration: Histogram<"job" | "status">;
  readonly httpRequests: Counter<"host" | "status" | "outcome">;
  readonly httpRetries: Counter<"host">;
  readonly queueMessages: Gauge<"queue" | "state">;
  readonly queueOldestAge: Gauge<"queue">;
  readonly queueRetries: Counter<"queue">;
  readonly schedulerFires: Counter<"job" | "outcome">;
  #queue: Queue | undefined;
  #stats: { at: number; value: Promise<QueueStats[] | undefined> } | undefined;

  constructor(options: { defaultMetrics?: boolean; logger?: Logger } = {}) {
    const registers = [this.registry];
    this.runs = new Counter({
      name: "tidemark_runs_total",
      help: "Runs that ended, by job and final status",
      labelNames: ["job", "status"],
      registers,
    });
    this.runDuration = new Histogram({
      name: "tidemark_run_duration_seconds",
      help: "Duration of ended runs, by job and final status",
      labelNames: ["job", "status"],
      buckets: RUN_DURATION_BUCKETS,
      registers,
    });
    this.httpRequests = new Counter({
      name: "tidemark_http_client_requests_total",
      help: "Outgoing HTTP attempts of source clients, by host, status (none = no answer) and outcome",
      labelNames: ["host", "status", "outcome"],
      registers,
    });
    this.httpRetries = new Counter({
      name: "tidemark_http_client_retries_total",
      help: "Outgoing HTTP attempts that are followed by a retry, by host",
      labelNames: ["host"],
      registers,
    });
    const collectStats = async (): Promise<QueueStats[] | undefined> => {
      const now = Date.now();
      if (!this.#stats || now - this.#stats.at > QUEUE_STATS_TTL_MS) {
        const queue = this.#queue;
        const value = queue
          ? queue.stats().catch((err: unknown) => {
              options.logger?.warn({ err }, "queue stats unavailable for /metrics");
              return undefined;
            })
          : Promise.resolve(undefined);
        this.#stats = { at: now, value };
      }
      return this.#stats.value;
    };
    this.queueMessages = new Gauge({
      name: "tidemark_queue_messages",
      help: "Messages per queue and state (queued, active, dead), read on scrape",
      labelNames: ["queue", "state"],
      registers,
      async collect() {
        const stats = await collectStats();
        this.reset();
        for (const s of stats ?? []) {
          this.set({ queue: s.queue, state: "queued" }, s.queued);
          this.set({ queue: s.queue, state: "active" }, s.active);
          this.set({ queue: s.queue, state: "dead" }, s.deadLettered);
        }
      },
    });
    this.queueOldestAge = new Gauge({
      name: "tidemark_queue_oldest_message_age_seconds",
      help: "Age of the oldest message waiting in each queue (0 when none), read on scrape",
      labelNames: ["queue"],
      registers,
      async collect() {
        const stats = await collectStats();
        this.reset();
        for (const s of stats ?? []) this.set({ queue: s.queue }, s.oldestQueuedAgeSeconds);
      },
    });
    this.queueRetries = new Counter({
      name: "tidemark_queue_retries_total",
      help: "Queue messages handled by this process on a second or later delivery",
      labelNames: ["queue"],
      registers,
    });
    this.schedulerFires = new Counter({
      name: "tidemark_scheduler_fires_total",
      help: "Cron fires by job and outcome (queued, ran, skipped-running, skipped-queued, skipped-claimed, skipped-misfire, error)",
      labelNames: ["job", "outcome"],
      registers,
    });
    if (options.defaultMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** Counts every ended run reported on `events`; returns the unsubscribe function. */
  observeRuns(events: RunEvents): () => void {
    return events.onRunEnded((e) => {
      const labels = { job: e.jobName, status: e.status };
      this.runs.inc(labels);
      const seconds = (Date.parse(e.finishedAt) - Date.parse(e.startedAt)) / 1000;
      if (Number.isFinite(seconds) && seconds >= 0) this.runDuration.observe(labels, seconds);
    });
  }

  /** Adds gauges of every process's runs, read from the database on scrape. */
  watchRunHistory(db: Database, logger?: Logger): void {
    registerRunHistoryGauges(this.registry, db, logger);
  }

  /** Reads queue depth from this queue on every scrape. */
  watchQueue(queue: Queue | undefined): void {
    this.#queue = queue;
    this.#stats = undefined;
  }

  /** Records one outgoing HTTP attempt (HttpClient's `onRequest`). */
  recordHttp(event: HttpRequestEvent): void {
    const status = event.status === undefined ? "none" : String(event.status);
    this.httpRequests.inc({ host: event.host, status, outcome: event.outcome });
    if (event.outcome === "retry") this.httpRetries.inc({ host: event.host });
  }

  /** The exposition text for `GET /metrics`. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** Content type of `text()`. */
  get contentType(): string {
    return this.registry.contentType;
  }
}
