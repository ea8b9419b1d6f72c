// One measured phase of bench/rakuten.ts, in its own process so that its peak RSS is its own:
// `floor` (a bare request loop over the item codes) or `job` (one run of a rakuten job type through
// the engine's runner). Prints one JSON line: {ms, rssMb, ...}.

import path from "node:path";
import type { JobContext, PipelineDefinition } from "tidemark";
import { sha256Hex } from "../src/engine/hashing/content-hash.ts";
import { nodeTransport } from "../src/engine/http/node-transport.ts";
import { Registry } from "../src/engine/registry/registry.ts";
import { executeRun } from "../src/engine/runs/job-runner.ts";
import { openRuntime } from "../src/engine/runtime/open-runtime.ts";
import { openBlobStore } from "../src/infra/blobs/open-blob-store.ts";
import { loadConfig } from "../src/infra/config/load-config.ts";
import { silentLogger } from "../src/infra/logging/logger.ts";
import { applyHeapGrowth } from "../src/infra/process/heap-growth.ts";
import { endpointPath } from "../src/pipelines/rakuten/client/endpoints.ts";
import { FakeCatalogue } from "../src/pipelines/rakuten/fake/catalogue.ts";
import { rakutenPipeline } from "../src/pipelines/rakuten/index.ts";
import { CountingBlobStore } from "../src/testing/entity-etl/counting-blob-store.ts";
import { childInput } from "./support/argv.ts";

/** What the parent passes (JSON in argv[2]). */
export interface PhaseInput {
  phase: "floor" | "puts" | "job";
  url: string;
  items: number;
  concurrency: number;
  appId: string;
  accessKey: string;
  /** job and puts */
  dataDir?: string;
  /** puts only: the size of each body (the first load's mean raw object). */
  bodyBytes?: number;
  dbPath?: string;
  jobType?: string;
  params?: Record<string, unknown>;
  /** Put the catalogue's item codes in params.item_codes (the first `codeLimit` of them). */
  withItemCodes?: boolean;
  codeLimit?: number;
  rps?: number;
  /**
   * Raise the client's request rate past the settings' ceiling (the load scenario: the fake has
   * no limit); the shared bucket in the database is still taken before every request.
   */
  rpsOverride?: number;
  /** Run the job again and again until SIGTERM (the rate-limit scenario). */
  repeat?: boolean;
}

/** Counts raw puts and their bytes without keeping their keys (which would weigh on the RSS). */
class RawPutCounter extends CountingBlobStore {
  count = 0;
  bytes = 0;
  override async put(
    key: string,
    body: Parameters<CountingBlobStore["put"]>[1],
    options?: { contentType?: string },
  ) {
    const info = await this.inner.put(key, body, options);
    if (key.startsWith("raw/source=")) {
      this.count++;
      this.bytes += info.size;
    }
    return info;
  }
}

const input = childInput<PhaseInput>();
// As the CLI does before any command, so that the phase's RSS is the installed product's.
applyHeapGrowth();
// BENCH_SQL_PROFILE=1: time every SQLite statement (see rakuten-sql-profile.ts).
if (process.env.BENCH_SQL_PROFILE) (await import("./rakuten-sql-profile.ts")).installSqlProfile();
const rss = () => process.resourceUsage().maxRSS / 1024;
/** CPU time (user + system, all threads) spent since `start`: robust to a busy machine. */
const cpuMsSince = (start: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
};

/** The pipeline, its jobs seeing `requestsPerSecond = rps` when given. */
function withRate(rps: number | undefined): PipelineDefinition {
  if (rps === undefined) return rakutenPipeline;
  return {
    ...rakutenPipeline,
    jobTypes: rakutenPipeline.jobTypes.map((j) => ({
      ...j,
      run: (ctx: JobContext, params: unknown) =>
        j.run(
          { ...ctx, settings: { ...(ctx.settings as object), requestsPerSecond: rps } },
          params,
        ),
    })),
  } as PipelineDefinition;
}

/**
 * The same requests the item job makes, with nothing done with the answers, through the same
 * transport as the Rakuten client (node:http with keep-alive, see node-transport.ts).
 */
async function floor(codes: string[]): Promise<Record<string, unknown>> {
  const endpoint = `${input.url}/${endpointPath("item", "openapi").replace(/^\/+/, "")}`;
  let next = 0;
  let ok = 0;
  const headers = new Headers();
  const worker = async () => {
    while (next < codes.length) {
      const code = codes[next++]!;
      const query = new URLSearchParams({
        itemCode: code,
        hits: "1",
        applicationId: input.appId,
        accessKey: input.accessKey,
        format: "json",
        formatVersion: "2",
      });
      const url = new URL(`${endpoint}?${query}`);
      const res = await nodeTransport(url, { method: "GET", headers });
      await res.text();
      if (res.status >= 200 && res.status < 300) ok++;
    }
  };
  const t = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: input.concurrency }, worker));
  return { ms: performance.now() - t, cpuMs: cpuMsSince(cpu), ok };
}

/**
 * The raw puts a first load makes, and nothing else: one new object per item code under a raw
 * key of the same shape, `bodyBytes` long, through the fs blob store as the job opens it, at the
 * job's put concurrency (32). What the disk and the kernel allow, next to the request floor.
 */
async function puts(codes: string[]): Promise<Record<string, unknown>> {
  const store = await openBlobStore({ driver: "fs", root: path.join(input.dataDir!, "blobs") });
  const body = "x".repeat(input.bodyBytes ?? 2048);
  let next = 0;
  const worker = async () => {
    while (next < codes.length) {
      const i = next++;
      const hash = sha256Hex(`${i}`);
      const key = `raw/source=bench/entity=item/source_id=${codes[i]}/hash=${hash}.json`;
      await store.put(key, `${body.slice(0, -hash.length)}${hash}`);
    }
  };
  const t = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: 32 }, worker));
  return { ms: performance.now() - t, cpuMs: cpuMsSince(cpu), ok: codes.length };
}

async function job(codes: string[]): Promise<Record<string, unknown>> {
  const config = loadConfig({
    cwd: input.dataDir!,
    env: {
      TIDEMARK_DATA_DIR: input.dataDir!,
      TIDEMARK_DATABASE_URL: `sqlite:${input.dbPath!}`,
      TIDEMARK_LOG_LEVEL: "silent",
    },
  });
  const pipelines = {
    ...config.pipelines,
    rakuten: { base_url: input.url, requests_per_second: input.rps ?? 100, use_env: false },
  };
  const base = await openRuntime({
    config: { ...config, pipelines },
    registry: new Registry([withRate(input.rpsOverride)]),
    logger: silentLogger(),
  });
  const blobs = new RawPutCounter(base.blobs);
  const rt = {
    ...base,
    blobs,
    environ: { RAKUTEN_APPLICATION_ID: input.appId, RAKUTEN_ACCESS_KEY: input.accessKey },
  };
  const itemCodes = codes.slice(0, input.codeLimit ?? codes.length);
  const params = { ...input.params, ...(input.withItemCodes ? { item_codes: itemCodes } : {}) };
  const stop = new AbortController();
  process.once("SIGTERM", () => stop.abort());
  try {
    const t = performance.now();
    const cpu = process.cpuUsage();
    let runs = 0;
    let report: Awaited<ReturnType<typeof executeRun>>;
    do {
      report = await executeRun(rt, {
        jobName: `bench-${input.jobType!.replace(".", "-")}`,
        jobType: input.jobType!,
        params,
        signal: stop.signal,
      });
      runs++;
    } while (input.repeat && !stop.signal.aborted);
    const ms = performance.now() - t;
    const cpuMs = cpuMsSince(cpu);
    const { failures: _f, ...summary } = report.summary as Record<string, unknown>;
    return {
      ms,
      cpuMs,
      runs,
      status: report.status,
      error: report.error,
      summary,
      blobPuts: blobs.count,
      rawBytes: blobs.bytes,
    };
  } finally {
    await base.close();
  }
}

const codes = new FakeCatalogue({ size: input.items }).itemCodes();
const out =
  input.phase === "floor"
    ? await floor(codes)
    : input.phase === "puts"
      ? await puts(codes)
      : await job(codes);
// With --expose-gc (NODE_OPTIONS), what is still reachable rather than garbage not yet collected.
(globalThis as { gc?: () => void }).gc?.();
const mem = process.memoryUsage();
const mb = (n: number) => Math.round(n / 1048576);
// Where the memory is at the end (heap, off-heap buffers), next to the peak RSS.
const memory = {
  heapMb: mb(mem.heapUsed),
  heapTotalMb: mb(mem.heapTotal),
  externalMb: mb(mem.external),
};
process.stdout.write(`${JSON.stringify({ ...out, memory, rssMb: rss() })}\n`);
