import type { Clock, Database, Logger, PipelineServices } from "tidemark";
import { typed } from "tidemark/kit";
import { createMercariClient } from "../../client/mercari-client.ts";
import type { MercariClient } from "../../client/types.ts";
import { type CrawlRepos, crawlRepos } from "../../repos/crawl-repos.ts";
import type { MercariSettings } from "../../settings.ts";
import type { MercariTables } from "../../tables.ts";
import type { CrawlOutbox } from "./send-messages.ts";

/**
 * What the crawl phases need: the repositories (built once per run or message), Mercari, where
 * crawl messages go, the pipeline's settings, clock, logger and leases.
 */
export interface CrawlContext {
  readonly repos: CrawlRepos;
  readonly client: MercariClient;
  readonly outbox: CrawlOutbox;
  readonly settings: MercariSettings;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly leases: PipelineServices["leases"];
}

/**
 * The mercari pipeline's services with their settings typed: the registry validated them with
 * `mercariSettings` (every route, command, panel and queue handler of this pipeline gets them).
 */
export function mercariServices(services: PipelineServices): PipelineServices<MercariSettings> {
  return services as PipelineServices<MercariSettings>;
}

// One client per database and settings: a worker handling thousands of detail messages reuses
// it instead of building a client (and its rate limiter) per message.
const clients = new WeakMap<Database, { key: string; client: MercariClient }>();

function sharedClient(services: PipelineServices<MercariSettings>): MercariClient {
  const key = JSON.stringify(services.settings);
  const cached = clients.get(services.db);
  if (cached?.key === key) return cached.client;
  const client = createMercariClient({
    settings: services.settings,
    logger: services.logger,
    db: services.db,
    clock: services.clock,
    onRequest: services.reportHttpRequest,
  });
  clients.set(services.db, { key, client });
  return client;
}

/**
 * The crawl's context from the pipeline's services: its settings, the Mercari client on the
 * database's shared rate limit (or `client`, e.g. a test's), and `outbox` for the messages.
 */
export function crawlContext(
  services: PipelineServices<MercariSettings>,
  outbox: CrawlOutbox,
  client?: MercariClient,
  /** Repositories the caller already built on the services' database. */
  repos?: CrawlRepos,
): CrawlContext {
  return {
    repos: repos ?? crawlRepos(typed<MercariTables>(services.db), services.clock),
    client: client ?? sharedClient(services),
    outbox,
    settings: services.settings,
    clock: services.clock,
    logger: services.logger,
    leases: services.leases,
  };
}
