import type { Clock, Config } from "../../engine/index.ts";
import {
  type Database,
  type JobContext,
  type Logger,
  type Queue,
  typed,
} from "../../engine/index.ts";
import { createMercariClient } from "./client/mercari-client.ts";
import type { MercariClient } from "./client/types.ts";
import type { MercariDeps } from "./deps.ts";
import { type MercariSettings, resolveMercariSettings } from "./settings.ts";
import type { MercariTables } from "./tables.ts";

/** The services a crawl is built from (a runtime, a job context, a queue handler context). */
export interface DepsSource {
  readonly config: Config;
  readonly db: Database;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly leases: JobContext["leases"];
  readonly environ?: NodeJS.ProcessEnv;
}

// One client per database and settings: a worker handling thousands of detail messages reuses
// it instead of building a client (and its rate limiter) per message.
const clients = new WeakMap<Database, { key: string; client: MercariClient }>();

function sharedClient(src: DepsSource, settings: MercariSettings): MercariClient {
  const key = JSON.stringify(settings);
  const cached = clients.get(src.db);
  if (cached?.key === key) return cached.client;
  const client = createMercariClient({
    settings,
    logger: src.logger,
    db: src.db,
    clock: src.clock,
  });
  clients.set(src.db, { key, client });
  return client;
}

/**
 * Builds the crawl's dependencies: settings from `pipelines.mercari` and the environment, the
 * Mercari client on the database's shared rate limit (or `client`, e.g. a test's), the queue.
 */
export function mercariDeps(src: DepsSource, queue: Queue, client?: MercariClient): MercariDeps {
  const settings = resolveMercariSettings(src.config, src.environ ?? process.env);
  return {
    db: typed<MercariTables>(src.db),
    client: client ?? sharedClient(src, settings),
    queue,
    settings,
    clock: src.clock,
    logger: src.logger,
    leases: src.leases,
  };
}
