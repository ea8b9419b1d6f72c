import type { Runtime } from "../runtime/runtime.ts";
import { DriverQueue } from "./driver-queue.ts";
import type { EmbeddedQueueOptions } from "./embedded/embedded-driver.ts";
import type { Queue } from "./queue.ts";

/** What opening a queue needs from the runtime (the embedded engine uses its database). */
export type QueueRuntime = Pick<Runtime, "config" | "db" | "logger" | "clock">;

export interface OpenQueueOptions {
  /** pg-boss only: run pg-boss's cron timekeeper here (for schedules kept in pg-boss). */
  schedule?: boolean;
  /** Embedded only: retention tuning. */
  embedded?: EmbeddedQueueOptions;
}

/**
 * Opens the queue engine chosen by `queue:` in tidemark.yaml. The embedded engine shares the
 * runtime's (migrated) database; pg-boss opens its own pool and installs its schema. Close
 * the queue (which stops its workers) before closing the runtime.
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
    return new DriverQueue(driver, runtime.logger);
  }
  const { EmbeddedDriver } = await import("./embedded/embedded-driver.ts");
  return new DriverQueue(
    new EmbeddedDriver(runtime.db, runtime.clock, options.embedded),
    runtime.logger,
  );
}
