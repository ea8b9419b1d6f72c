import type { Kysely } from "kysely";
import type { Clock, JobContext, Logger, Queue } from "../../engine/index.ts";
import type { MercariClient } from "./client/types.ts";
import type { MercariSettings } from "./settings.ts";
import type { MercariTables } from "./tables.ts";

/** What the crawl phases need: the database, Mercari, the queue, settings, clock, leases. */
export interface MercariDeps {
  readonly db: Kysely<MercariTables>;
  readonly client: MercariClient;
  readonly queue: Queue;
  readonly settings: MercariSettings;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly leases: JobContext["leases"];
}
