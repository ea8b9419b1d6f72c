import type { BlobStore } from "../../infra/blobs/blob-store.ts";
import type { Config } from "../../infra/config/load-config.ts";
import type { Database } from "../../infra/db/open-database.ts";
import type { Logger } from "../../infra/logging/logger.ts";
import type { Clock } from "../clock/clock.ts";
import type { LeaseStore } from "../leases/lease-store.ts";
import type { RunEvents } from "../notify/run-events.ts";
import type { Registry } from "../registry/registry.ts";
/** The engine's services for one process: config, database, blobs, leases, registry. */
export interface Runtime {
  readonly config: Config;
  readonly db: Database;
  readonly blobs: BlobStore;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly clock: Clock;
  readonly leases: LeaseStore;
  /** Environment variables jobs see as `ctx.environ` (default: process.env). */
  readonly environ: NodeJS.ProcessEnv;
  /** Ended runs are reported here (metrics, failure webhook); optional for hand-built runtimes. */
  readonly events?: RunEvents;
  close(): Promise<void>;
}
