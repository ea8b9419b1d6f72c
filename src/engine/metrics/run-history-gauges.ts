import { Gauge, type Registry } from "prom-client";
import type { Database } from "../../infra/db/open-database.ts";
import { typed } from "../../infra/db/open-database.ts";
import type { Logger } from "../../infra/logging/logger.ts";
import type { EngineTables } from "../engine-tables.ts";

interface HistoryRow {
  job: string;
  status: string;
  runs: number;
  lastStartMs: number;
}

/**
 * Gauges read from `tm_runs` on scrape: every process's runs (a worker's runs show on the
 * server's /metrics too), where the counters only see this process's. The classic alert is
 * `time() - tidemark_job_last_run_timestamp_seconds{status="succeeded"} > …`.
 */
export function registerRunHistoryGauges(registry: Registry, db: Database, logger?: Logger): void {
  let snapshot: { at: number; rows: Promise<HistoryRow[] | undefined> } | undefined;
  const read = () => {
    const now = Date.now();
    if (!snapshot || now - snapshot.at > 1000) {
      snapshot = {
        at: now,
        rows: query(db).catch((err: unknown) => {
          logger?.warn({ err }, "run history unavailable for /metrics");
          return undefined;
        }),
      };
    }
    return snapshot.rows;
  };
  new Gauge({
    name: "tidemark_job_runs_recorded",
    help: "Runs recorded in the database by any process, by job and status",
    labelNames: ["job", "status"],
    registers: [registry],
    async collect() {
      const rows = await read();
      this.reset();
      for (const r of rows ?? []) this.set({ job: r.job, status: r.status }, r.runs);
    },
  });
  new Gauge({
    name: "tidemark_job_last_run_timestamp_seconds",
    help: "Start time (Unix seconds) of each job's latest run per status, from the database",
    labelNames: ["job", "status"],
    registers: [registry],
    async collect() {
      const rows = await read();
      this.reset();
      for (const r of rows ?? []) this.set({ job: r.job, status: r.status }, r.lastStartMs / 1000);
    },
  });
}

async function query(db: Database): Promise<HistoryRow[]> {
  const rows = await typed<EngineTables>(db)
    .selectFrom("tm_runs")
    .select((eb) => [
      "job_name",
      "status",
      eb.fn.countAll().as("runs"),
      eb.fn.max("started_at").as("last_start"),
    ])
    .groupBy(["job_name", "status"])
    .execute();
  return rows.map((r) => ({
    job: r.job_name,
    status: r.status,
    runs: Number(r.runs),
    lastStartMs: Date.parse(String(r.last_start)),
  }));
}
