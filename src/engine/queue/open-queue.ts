import type { Config } from "../../infra/config/load-config.ts";
import type { Database } from "../../infra/db/open-database.ts";
import type { Logger } from "../../infra/logging/logger.ts";
import type { Clock } from "../clock/clock.ts";
import { DriverQueue } from "./driver-queue.ts";
import type { EmbeddedQueueOptions } from "./embedded/embedded-driver.ts";
import type { Queue } from "./queue.ts";
import type { QueueDriver } from "./queue-driver.ts";
import { RunChildrenQueue } from "./run-children.ts";

/** What opening a queue needs of the runtime (the embedded engine uses its database). */
export interface QueueRuntime {
  readonly config: Config;
  readonly db: Database;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Set when a running job opens the queue (its context): its sends are the run's children. */
  readonly runId?: string;
}

export interface OpenQueueOptions {
  /** pg-boss only: run pg-boss's cron timekeeper here (for schedules kept in pg-boss). */
  schedule?: boolean;
  /** Embedded only: retention tuning. */
  embedded?: EmbeddedQueueOptions;
}

/**
 * Opens the queue engine chosen by `queue:` in tidemark.yaml. The embedded engine shares the
 * runtime's (migrated) database; pg-boss opens its own pool and installs its schema. Close
 * the queue (which stops its workers) before closing the runtime. Opened from a job's context
 * (which carries its run id), every message sent is recorded as a child of that run.
 */
export async function openQueue(
  runtime: QueueRuntime,
  options: OpenQueueOptions = {},
): Promise<Queue> {
  const target = runtime.config.queue;
  if (target.engine === "pg-boss") {
    const { PgBossDriver } = await import("./pg-boss/pg-boss-driver.ts");
    const driver = await PgBossDriver.open({
      url: target.url,
      schema: target.schema,
      maintenanceIntervalSeconds: target.maintenanceIntervalSeconds,
      schedule: options.schedule,
      logger: runtime.logger,
    });
    return withRun(runtime, driver);
  }
  const { EmbeddedDriver } = await import("./embedded/embedded-driver.ts");
  return withRun(runtime, new EmbeddedDriver(runtime.db, runtime.clock, options.embedded));
}

/** The queue over `driver`; one that records its sends when a run opened it. */
function withRun(runtime: QueueRuntime, driver: QueueDriver): Queue {
  if (typeof runtime.runId !== "string") {
    return new DriverQueue(driver, runtime.logger);
  }
  return new RunChildrenQueue(driver, runtime.logger, runtime.db, runtime.clock, runtime.runId);
}
