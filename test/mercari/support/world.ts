// Shared setup of the mercari domain tests: a runtime on a fresh database with the mercari
// pipeline, the Mercari fake on a local port, and the configured queue engine.
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { onTestFinished } from "vitest";
import type { Clock } from "../../../src/engine/clock/clock.ts";
import type { RunEndedEvent } from "../../../src/engine/notify/run-events.ts";
import { openQueue } from "../../../src/engine/queue/open-queue.ts";
import type { Queue } from "../../../src/engine/queue/queue.ts";
import type { PipelineServices } from "../../../src/engine/registry/pipeline-services.ts";
import { Registry } from "../../../src/engine/registry/registry.ts";
import { pipelineServices } from "../../../src/engine/runs/pipeline-services.ts";
import { openRuntime } from "../../../src/engine/runtime/open-runtime.ts";
import type { Runtime } from "../../../src/engine/runtime/runtime.ts";
import { loadConfig } from "../../../src/infra/config/load-config.ts";
import { typed } from "../../../src/infra/db/open-database.ts";
import { silentLogger } from "../../../src/infra/logging/logger.ts";
import type { GroupSpec } from "../../../src/pipelines/mercari/fake/listing.ts";
import {
  type StartedMercariFake,
  startMercariFakeServer,
} from "../../../src/pipelines/mercari/fake/start-fake.ts";
import { mercariPipeline } from "../../../src/pipelines/mercari/index.ts";
import { drainCrawlQueue } from "../../../src/pipelines/mercari/queue/drain.ts";
import { ProductRepo } from "../../../src/pipelines/mercari/repos/product-repo.ts";
import type { MercariSettings } from "../../../src/pipelines/mercari/settings.ts";
import type { MercariTables } from "../../../src/pipelines/mercari/tables.ts";
import type { DialectHarness } from "../../../src/testing/dialects.ts";
import { testTempDir } from "../../../src/testing/temp-dir.ts";

export type QueueEngine = "embedded" | "pg-boss";

/** The queue engines a dialect can run: pg-boss needs Postgres. */
export function enginesFor(h: DialectHarness): QueueEngine[] {
  return h.dialect === "postgres" ? ["embedded", "pg-boss"] : ["embedded"];
}

/** One small keyword group: 300 listings, 15% shops, 40% sold, some named without the keyword. */
export const SWITCH_GROUP: GroupSpec = {
  keyword: "Nintendo Switch",
  count: 300,
  categoryId: 701,
  priceMin: 15_000,
  priceMax: 38_000,
};

/**
 * A mercari test world: runtime, the pipeline's services (sending to `queue`), fake, queue,
 * product repo, captured run events.
 */
export interface World {
  runtime: Runtime;
  services: PipelineServices<MercariSettings>;
  fake: StartedMercariFake;
  queue: Queue;
  products: ProductRepo;
  db: ReturnType<typeof typed<MercariTables>>;
  events: RunEndedEvent[];
  drain(options?: { timeoutMs?: number; tick?: () => void }): ReturnType<typeof drainCrawlQueue>;
}

/**
 * Opens the world: a fresh database of `h`, `pipelines.mercari` pointed at a fresh fake (no
 * rate limit, 50 listings a page, one attempt per request so blocks show at once).
 */
export async function openWorld(
  h: DialectHarness,
  options: { engine?: QueueEngine; clock?: Clock; groups?: GroupSpec[]; yaml?: string } = {},
): Promise<World> {
  const fake = await startMercariFakeServer({ seed: 5, groups: options.groups ?? [SWITCH_GROUP] });
  const dir = testTempDir("tm-mercari-");
  const target = await h.freshTarget();
  writeFileSync(
    path.join(dir, "tidemark.yaml"),
    options.yaml ??
      "pipelines:\n  mercari:\n    requests_per_second: 0\n    page_size: 50\n    retry_max_attempts: 1\n",
  );
  const env: NodeJS.ProcessEnv = {
    TIDEMARK_DATA_DIR: path.join(dir, "data"),
    TIDEMARK_DATABASE_URL: target.dialect === "postgres" ? target.url : `sqlite:${target.path}`,
    TIDEMARK_LOG_LEVEL: "silent",
    TIDEMARK_MERCARI_URL: fake.url,
    ...(options.engine === "pg-boss" ? { TIDEMARK_QUEUE: "pg-boss" } : {}),
  };
  const config = loadConfig({ cwd: dir, env });
  const runtime = await openRuntime({
    config,
    registry: new Registry([mercariPipeline]),
    logger: silentLogger(),
    clock: options.clock,
    environ: env,
  });
  const queue = await openQueue(runtime);
  const events: RunEndedEvent[] = [];
  runtime.events?.onRunEnded((e) => {
    events.push(e);
  });
  onTestFinished(async () => {
    await queue.close();
    await runtime.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const db = typed<MercariTables>(runtime.db);
  const services = pipelineServices<MercariSettings>(runtime, mercariPipeline.name, { queue });
  return {
    runtime,
    services,
    fake,
    queue,
    products: new ProductRepo(db),
    db,
    events,
    drain: (o = {}) => drainCrawlQueue(services, queue, { timeoutMs: 60_000, ...o }),
  };
}

/** Every stored row of a product, by external id. */
export async function rowsOf(w: World, productId: number) {
  return w.db
    .selectFrom("mercari_crawl_results")
    .selectAll()
    .where("product_id", "=", productId)
    .orderBy("external_id")
    .execute();
}
