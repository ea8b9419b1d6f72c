import { openBlobStore } from "../../infra/blobs/open-blob-store.ts";
import type { Config } from "../../infra/config/load-config.ts";
import { type MigrationScope, migrateToLatest } from "../../infra/db/migrator.ts";
import { openDatabase } from "../../infra/db/open-database.ts";
import type { Logger } from "../../infra/logging/logger.ts";
import { type Clock, systemClock } from "../clock/clock.ts";
import { LeaseStore } from "../leases/lease-store.ts";
import { NOTIFY_DRAIN_MS, startFailureWebhook } from "../notify/failure-webhook.ts";
import { RunEvents } from "../notify/run-events.ts";
import type { Registry } from "../registry/registry.ts";
import type { Runtime } from "./runtime.ts";

export interface OpenRuntimeOptions {
  config: Config;
  registry: Registry;
  logger: Logger;
  clock?: Clock;
  /** Apply pending migrations first (default true): commands that need the schema migrate it. */
  migrate?: boolean;
  /** Environment variables handed to jobs as `ctx.environ` (default: process.env). */
  environ?: NodeJS.ProcessEnv;
  /** Migration scopes of the host process (the server's), migrated right after the engine's. */
  hostScopes?: readonly MigrationScope[];
}

/** Opens the database (migrating it) and the blob store. */
export async function openRuntime(options: OpenRuntimeOptions): Promise<Runtime> {
  const { config, registry, logger } = options;
  const clock = options.clock ?? systemClock;
  const db = await openDatabase(config.database);
  try {
    if (options.migrate !== false) {
      for (const { scope, applied } of await migrateToLatest(
        db,
        registry.migrationScopes(options.hostScopes),
      )) {
        if (applied.length > 0) logger.info({ scope, applied }, "database migrated");
      }
    }
    const blobs = await openBlobStore(config.blobs);
    const events = new RunEvents(logger);
    const notifier = await startFailureWebhook(config, events, logger);
    return {
      config,
      db,
      blobs,
      logger,
      registry,
      clock,
      leases: new LeaseStore(db, clock),
      environ: options.environ ?? process.env,
      events,
      close: async () => {
        await notifier?.drain(NOTIFY_DRAIN_MS);
        await db.close();
      },
    };
  } catch (err) {
    await db.close();
    throw err;
  }
}
