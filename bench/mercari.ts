// Mercari pipeline benchmark (issue 11): a product with 50,000 listings in the fake (50 ms
// latency per request, no rate limit, the first-run page cap raised to cover them). Tidemark
// does the first full crawl and every resulting detail message (the sold-date sync of every
// sold listing) with 1 and with 3 `tidemark worker --drain` processes on Postgres + pg-boss;
// Crawlee (BasicCrawler and its request queue) fetches the same search pages and details at
// the same concurrency. Prints wall times, the ratios, and the lost and duplicate counts.
// Runs the compiled build (production layout) unless --from-source.
//
//   npm run bench:mercari [-- --listings N] [--latency MS] [--concurrency N] [--page-size N]
//                         [--pg URL] [--from-source] [--skip-crawlee] [--one-worker] [--keep]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { MERCARI_QUEUE } from "../src/pipelines/mercari/params.ts";
import {
  type CrawleeResult,
  freshPgDatabase,
  pgQuery,
  runCrawlee,
  startFakeChild,
  tidemark,
  writeCliWrapper,
} from "./mercari-support.ts";
import { benchArgs } from "./support/argv.ts";
import { buildDist, type CliEntry, sourceEntry } from "./support/cli-run.ts";

const { flag, opt } = benchArgs();
const LISTINGS = Number(opt("--listings", "50000"));
const LATENCY_MS = Number(opt("--latency", "50"));
/** Messages each worker process handles at once; Crawlee gets workers × this. */
const CONCURRENCY = Number(opt("--concurrency", "5"));
const PAGE_SIZE = Number(opt("--page-size", "120"));
const PG_URL = opt(
  "--pg",
  process.env.TIDEMARK_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
);
const KEYWORD = "ベンチ ポケモンカード";
const PAGES = Math.ceil(LISTINGS / PAGE_SIZE);

const work = mkdtempSync(path.join(tmpdir(), "tidemark-bench-mercari-"));
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** What one Tidemark run did and what it left in the database. */
interface TidemarkResult {
  workers: number;
  wallMs: number;
  handled: number[];
  /** Each worker's own drain time (from its first claim to the empty queue). */
  drainSecs: string[];
  /** Each worker process's CPU time (user + system), in ms. */
  cpuMs: number[];
  rows: number;
  distinctIds: number;
  soldWithoutDate: number;
  detailRequests: number;
  repeatedDetails: number;
  expectedSold: number;
}

interface FakeState {
  counts: { on_sale: number; trading: number; sold_out: number };
}
interface DetailCounts {
  total: number;
  distinct: number;
  repeated: string[];
}

function must(run: { code: number; stdout: string; stderr: string }, what: string): string {
  if (run.code !== 0)
    throw new Error(`${what} failed (exit ${run.code}): ${run.stderr || run.stdout}`);
  return run.stdout.trim();
}

/** One Tidemark run: fresh fake and database, enqueue the crawl, N draining workers. */
async function runTidemark(entry: CliEntry, workers: number): Promise<TidemarkResult> {
  const fake = await startFakeChild(KEYWORD, LISTINGS, LATENCY_MS);
  const db = await freshPgDatabase(PG_URL);
  const dir = path.join(work, `tidemark-${workers}`);
  mkdirSync(dir, { recursive: true });
  const config = path.join(dir, "tidemark.yaml");
  writeFileSync(
    config,
    `queue: pg-boss
pipelines:
  mercari:
    requests_per_second: 0
    page_size: ${PAGE_SIZE}
    first_run_max_pages: ${PAGES + 10}
`,
  );
  const env = {
    TIDEMARK_DATABASE_URL: db.url,
    TIDEMARK_DATA_DIR: path.join(dir, "data"),
    TIDEMARK_MERCARI_URL: fake.url,
    TIDEMARK_LOG_LEVEL: "warn",
  };
  const wrapper = writeCliWrapper(entry, dir);
  const cli = (...argv: string[]) => tidemark(wrapper, ["-c", config, ...argv], env, dir);
  try {
    must(await cli("db", "migrate"), "db migrate");
    const product = must(
      await cli("mercari", "product", "add", "--name", "bench", "--keyword", KEYWORD),
      "product add",
    );
    must(
      await cli("job", "add", "bench-crawl", "--type", "mercari.crawl", "--params", "{}"),
      "job add",
    );
    must(await cli("run", "bench-crawl"), "run bench-crawl");
    const started = performance.now();
    const runs = await Promise.all(
      Array.from({ length: workers }, () =>
        cli("worker", "--drain", "--queue", MERCARI_QUEUE, "--concurrency", String(CONCURRENCY)),
      ),
    );
    const wallMs = performance.now() - started;
    for (const [i, r] of runs.entries()) must(r, `worker ${i + 1}`);
    const [counts] = await pgQuery<{ rows: string; ids: string; undated: string }>(
      db.url,
      `select count(*) as rows, count(distinct external_id) as ids,
              count(*) filter (where selling_status = 2 and sold_out_at is null) as undated
         from mercari_crawl_results where product_id = $1`,
      [Number(product)],
    );
    const state = await fake.get<FakeState>("state");
    const details = await fake.get<DetailCounts>("detail-counts");
    return {
      workers,
      wallMs,
      handled: runs.map((r) =>
        Number(/(\d+) message\(s\) handled/.exec(r.stdout)?.[1] ?? Number.NaN),
      ),
      drainSecs: runs.map((r) => /in (\d+\.\d) s:/.exec(r.stdout)?.[1] ?? "?"),
      cpuMs: runs.map((r) => Number(/bench-cpu-ms (\d+)/.exec(r.stderr)?.[1] ?? Number.NaN)),
      rows: Number(counts?.rows),
      distinctIds: Number(counts?.ids),
      soldWithoutDate: Number(counts?.undated),
      detailRequests: details.total,
      repeatedDetails: details.repeated.length,
      expectedSold: state.counts.sold_out + state.counts.trading,
    };
  } finally {
    await fake.stop();
    await db.drop();
  }
}

/** Crawlee at `concurrency` against a fresh fake. */
async function crawlee(concurrency: number): Promise<CrawleeResult> {
  const fake = await startFakeChild(KEYWORD, LISTINGS, LATENCY_MS);
  try {
    const storage = path.join(work, `crawlee-${concurrency}`);
    return await runCrawlee(fake.url, KEYWORD, concurrency, PAGE_SIZE, storage);
  } finally {
    await fake.stop();
  }
}

function reportTidemark(r: TidemarkResult): void {
  const lost = LISTINGS - r.distinctIds + r.soldWithoutDate;
  const cpu = r.cpuMs.reduce((a, b) => a + b, 0);
  const messages = r.handled.reduce((a, b) => a + b, 0);
  console.log(
    `  Tidemark, ${r.workers} worker(s) x ${CONCURRENCY}: ${secs(r.wallMs)} (draining ${r.drainSecs.join(", ")} s); messages handled per worker ${r.handled.join(" + ")}; ` +
      `${r.rows.toLocaleString("en")} rows (${r.distinctIds.toLocaleString("en")} listings), ` +
      `${r.detailRequests.toLocaleString("en")} detail requests for ${r.expectedSold.toLocaleString("en")} sold listings; ` +
      `lost ${lost}, written twice ${r.rows - r.distinctIds}, detail fetched twice ${r.repeatedDetails}; ` +
      `worker CPU ${secs(cpu)} (${(cpu / messages).toFixed(2)} ms per message)`,
  );
}

function reportCrawlee(c: CrawleeResult, concurrency: number): void {
  console.log(
    `  Crawlee, concurrency ${concurrency}: ${secs(c.wallMs)}; ${c.searchPages} search pages, ${c.listed.toLocaleString("en")} listings, ` +
      `${c.details.toLocaleString("en")} details; lost ${LISTINGS - c.listed + c.lostDetails}, fetched twice ${c.duplicateDetails}`,
  );
}

async function main(): Promise<void> {
  console.log(`Mercari benchmark in ${work}`);
  console.log(
    `  ${LISTINGS.toLocaleString("en")} listings (${PAGES} search pages of ${PAGE_SIZE}), ${LATENCY_MS} ms per request, ` +
      `no rate limit, Postgres + pg-boss, ${CONCURRENCY} messages at once per worker`,
  );
  const entry = flag("--from-source") ? sourceEntry() : await buildDist(path.join(work, "dist"));
  // --one-worker: only the one-worker runs (a quicker comparison with Crawlee while tuning).
  const withThree = !flag("--one-worker");
  const one = await runTidemark(entry, 1);
  reportTidemark(one);
  const three = withThree ? await runTidemark(entry, 3) : undefined;
  if (three) reportTidemark(three);
  let c1: CrawleeResult | undefined;
  let c3: CrawleeResult | undefined;
  if (!flag("--skip-crawlee")) {
    c1 = await crawlee(CONCURRENCY);
    reportCrawlee(c1, CONCURRENCY);
    c3 = withThree ? await crawlee(CONCURRENCY * 3) : undefined;
    if (c3) reportCrawlee(c3, CONCURRENCY * 3);
  }

  const clean = [one, three].every(
    (r) =>
      r === undefined ||
      (r.distinctIds === LISTINGS &&
        r.rows === r.distinctIds &&
        r.soldWithoutDate === 0 &&
        r.repeatedDetails === 0),
  );
  console.log("\nSummary");
  if (three) {
    const speedup = one.wallMs / three.wallMs;
    console.log(
      `  3 workers vs 1: ${speedup.toFixed(2)}x faster (target >= 2.5: ${speedup >= 2.5 ? "OK" : "UNDER"})`,
    );
  }
  for (const [t, c, conc] of [
    [one, c1, CONCURRENCY],
    [three, c3, CONCURRENCY * 3],
  ] as const) {
    if (!c || !t) continue;
    const ratio = t.wallMs / c.wallMs;
    console.log(
      `  Tidemark/Crawlee at concurrency ${conc}: ${secs(t.wallMs)} / ${secs(c.wallMs)} = ${ratio.toFixed(2)} (target <= 1: ${ratio <= 1 ? "OK" : "OVER"})`,
    );
  }
  console.log(
    `  every listing stored once, every sold listing's detail fetched once: ${clean ? "OK" : "NO"}`,
  );
  if (!flag("--keep")) rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
}

await main();
