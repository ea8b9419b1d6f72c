import { systemClock } from "../../engine/clock/clock.ts";
import { engineMigrations } from "../../engine/migrations/index.ts";
import { DriverQueue } from "../../engine/queue/driver-queue.ts";
import { EmbeddedDriver } from "../../engine/queue/embedded/embedded-driver.ts";
import type { Queue } from "../../engine/queue/queue.ts";
import type { DatabaseTarget } from "../../infra/config/load-config.ts";
import { migrateToLatest } from "../../infra/db/migrator.ts";
import { openDatabase } from "../../infra/db/open-database.ts";
import { type Logger, silentLogger } from "../../infra/logging/logger.ts";

/** Where a queue lives, as JSON a child process can be given to open the same store. */
export type QueueSpec =
  | { engine: "embedded"; database: DatabaseTarget }
  | { engine: "pg-boss"; url: string; schema: string; maintenanceIntervalSeconds: number };

/** A Queue on its own connections, and how to close both. */
export interface OpenedQueue {
  queue: Queue;
  close(): Promise<void>;
}

/**
 * Opens a Queue on the store a spec names, on connections of its own (embedded: migrates the
 * engine schema first). Tests and child processes use it; the product uses openQueue().
 */
export async function openQueueFromSpec(
  spec: QueueSpec,
  logger: Logger = silentLogger(),
): Promise<OpenedQueue> {
  if (spec.engine === "pg-boss") {
    const { PgBossDriver } = await import("../../engine/queue/pg-boss/pg-boss-driver.ts");
    const driver = await PgBossDriver.open({ ...spec, logger, poolSize: 4 });
    const queue = new DriverQueue(driver, logger);
    return { queue, close: () => queue.close() };
  }
  const db = await openDatabase(spec.database);
  await migrateToLatest(db, [engineMigrations]);
  const queue = new DriverQueue(new EmbeddedDriver(db, systemClock), logger);
  return {
    queue,
    async close() {
      await queue.close();
      await db.close();
    },
  };
}
