import type { Kysely } from "kysely";
import { Registry } from "../../../src/engine/registry/registry.ts";
import { executeRun, type RunRequest } from "../../../src/engine/runs/job-runner.ts";
import type { Runtime } from "../../../src/engine/runtime/runtime.ts";
import { typed } from "../../../src/infra/db/open-database.ts";
import { rakutenPipeline } from "../../../src/pipelines/rakuten/index.ts";
import type { NormalizedItem } from "../../../src/pipelines/rakuten/stages/normalize/types.ts";
import type { RakutenTables } from "../../../src/pipelines/rakuten/tables.ts";
import type { DialectHarness } from "../../../src/testing/dialects.ts";
import { ManualClock } from "../../../src/testing/manual-clock.ts";
import { openTestRuntime } from "../../../src/testing/test-runtime.ts";

/** A migrated runtime with only the rakuten pipeline registered, on a manual clock. */
export async function openRakutenRuntime(
  h: DialectHarness,
  opts: {
    clock?: ManualClock;
    pipelines?: Record<string, Record<string, unknown>>;
    environ?: NodeJS.ProcessEnv;
  } = {},
): Promise<{
  rt: Runtime;
  db: Kysely<RakutenTables>;
  clock: ManualClock;
  run: RunFn;
  reconfigure(rakuten: Record<string, unknown>): void;
}> {
  const clock = opts.clock ?? new ManualClock("2026-05-20T03:00:00.000Z");
  const base = await openTestRuntime(h, { clock, registry: new Registry([rakutenPipeline]) });
  const rt: Runtime = {
    ...base,
    environ: { ...opts.environ },
    config: {
      ...base.config,
      pipelines: { ...base.config.pipelines, ...(opts.pipelines ?? {}) },
    },
  };
  const run: RunFn = (jobType, params = {}, req = {}) =>
    executeRun(rt, {
      jobName: jobType.replace(".", "-"),
      jobType,
      params,
      ...req,
    });
  /**
   * `pipelines.rakuten` changed, as a user editing tidemark.yaml gets it on the next command: a
   * new configuration, whose settings the registry validates afresh.
   */
  const reconfigure = (rakuten: Record<string, unknown>) => {
    const config = { ...rt.config, pipelines: { ...rt.config.pipelines, rakuten } };
    Object.assign(rt, { config });
  };
  return { rt, db: typed<RakutenTables>(rt.db), clock, run, reconfigure };
}

/** Runs a job type of the pipeline (job name derived from the type). */
export type RunFn = (
  jobType: string,
  params?: object,
  req?: Partial<RunRequest>,
) => ReturnType<typeof executeRun>;

/** A normalized item with every field set; override what a test cares about. */
export function itemDoc(patch: Partial<NormalizedItem> = {}): NormalizedItem {
  return {
    itemCode: "shop-a:1",
    itemName: "今治タオル ギフトセット",
    catchcopy: "贈り物に",
    itemCaption: "綿100%",
    itemPrice: 3980,
    itemUrl: "https://item.rakuten.co.jp/shop-a/1/",
    affiliateUrl: null,
    affiliateRate: 1,
    imageFlag: 1,
    smallImageUrls: ["https://img/a_s1.jpg", "https://img/a_s2.jpg"],
    mediumImageUrls: ["https://img/a_m1.jpg"],
    availability: 1,
    taxFlag: 0,
    postageFlag: 0,
    creditCardFlag: 1,
    shopOfTheYearFlag: 0,
    giftFlag: 1,
    startTime: null,
    endTime: null,
    reviewCount: 10,
    reviewAverage: 4.5,
    pointRate: 1,
    pointRateStartTime: null,
    pointRateEndTime: null,
    shopName: "タオル本舗",
    shopCode: "shop-a",
    shopUrl: "https://www.rakuten.co.jp/shop-a/",
    genreId: 100371,
    tagIds: [1000317, 1000318],
    ...patch,
  };
}
