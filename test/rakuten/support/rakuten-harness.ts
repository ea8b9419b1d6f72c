import { randomBytes } from "node:crypto";
import { onTestFinished } from "vitest";
import { startFakeServer } from "../../../src/engine/fakes/fake-server.ts";
import type { RunRequest } from "../../../src/engine/runs/job-runner.ts";
import type { Runtime } from "../../../src/engine/runtime/runtime.ts";
import type { BlobStore } from "../../../src/infra/blobs/blob-store.ts";
import {
  RakutenApiFake,
  type RakutenFakeKnobs,
} from "../../../src/pipelines/rakuten/fake/rakuten-api-fake.ts";
import type { DialectHarness } from "../../../src/testing/dialects.ts";
import { CountingBlobStore } from "../../../src/testing/entity-etl/counting-blob-store.ts";
import { ManualClock } from "../../../src/testing/manual-clock.ts";
import type { startS3rver } from "../../../src/testing/s3rver.ts";
import { openRakutenRuntime } from "./domain-runtime.ts";

/** Which blob store serves as the raw store. */
export type BlobDriver = "fs" | "s3";

/** The credentials the fake expects (any non-empty values). */
export const TEST_ENVIRON = {
  RAKUTEN_APPLICATION_ID: "11111111-2222-3333-4444-555555555555",
  RAKUTEN_ACCESS_KEY: "test-access-key",
};

/**
 * A migrated runtime whose rakuten settings point at a fresh API fake (rate limit off unless a
 * test turns it on; Retry-After 0 so retries are quick), with a counting raw store on fs or s3.
 */
export async function openRakutenHarness(
  h: DialectHarness,
  opts: {
    driver?: BlobDriver;
    s3?: () => Awaited<ReturnType<typeof startS3rver>>;
    size?: number;
    knobs?: Partial<RakutenFakeKnobs>;
    clock?: ManualClock;
    settings?: Record<string, unknown>;
  } = {},
) {
  const fake = new RakutenApiFake({
    size: opts.size ?? 60,
    knobs: { rateLimit: false, retryAfterSeconds: 0, ...opts.knobs },
  });
  /**
   * Test hooks: `beforeRequest` runs (and may wait) before the fake answers each request;
   * `rewriteBody` changes the text of each answer (what a broken API or proxy would send).
   */
  const hooks: {
    beforeRequest?: (request: Request) => Promise<void>;
    rewriteBody?: (text: string, request: Request) => string;
  } = {};
  const server = await startFakeServer(async (request: Request) => {
    await hooks.beforeRequest?.(request);
    const response = await fake.handle(request);
    const rewrite = hooks.rewriteBody;
    if (rewrite === undefined) return response;
    const text = rewrite(await response.text(), request);
    return new Response(text, { status: response.status, headers: response.headers });
  });
  onTestFinished(() => server.close());
  const settings = {
    base_url: server.url,
    requests_per_second: 100,
    retry_max_attempts: 3,
    use_env: false,
    ...opts.settings,
  };
  // Raw saves are stamped by the blob store's own (real) time, so the run's clock starts now.
  const base = await openRakutenRuntime(h, {
    clock: opts.clock ?? new ManualClock(new Date()),
    pipelines: { rakuten: settings },
    environ: TEST_ENVIRON,
  });
  const inner: BlobStore =
    opts.driver === "s3" && opts.s3
      ? opts.s3().store(`t-${randomBytes(4).toString("hex")}/`)
      : base.rt.blobs;
  const blobs = new CountingBlobStore(inner);
  const rt: Runtime = { ...base.rt, blobs };
  const { executeRun } = await import("../../../src/engine/runs/job-runner.ts");
  const run = (jobType: string, params: object = {}, req: Partial<RunRequest> = {}) =>
    executeRun(rt, { jobName: jobType.replace(".", "-"), jobType, params, ...req });
  return {
    ...base,
    rt,
    fake,
    hooks,
    catalogue: fake.catalogue,
    server,
    blobs,
    run,
    /** Moves every staging row's saved_at to yesterday (what an earlier day's run would have left). */
    savedYesterday: async () => {
      const yesterday = new Date(Date.now() - 86_400_000).toISOString();
      await base.db.updateTable("apl.staging").set({ saved_at: yesterday }).execute();
    },
    /** Every staging row of an entity, by source id. */
    staging: (entity: string) =>
      base.db
        .selectFrom("apl.staging")
        .selectAll()
        .where("entity", "=", entity)
        .orderBy("source_id")
        .execute(),
  };
}

/** What `openRakutenHarness` gives a test. */
export type RakutenHarness = Awaited<ReturnType<typeof openRakutenHarness>>;
