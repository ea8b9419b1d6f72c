// Snapshots pipeline benchmark (issue 4): full ingestion of a 1,000,000-row CSV (~75 MB, Cyrillic
// names with commas) in a child process on an installed data dir (schema migrated beforehand) —
// wall time, rows/s, peak RSS — against DuckDB doing the core transform on the same file; after
// each, a second file ingested against the 1M state it left (the diff run); a 14-sheet,
// 200,000-row XLSX; with --10m, the 10,000,000-row CSV whose peak RSS must stay within 10% of the
// 1M figure; the XLSX against a bare streaming read of the same workbook with exceljs. Every
// output is checked byte for byte against the fingerprints recorded from the previous build
// (bench/snapshots-baseline.json; --record-outputs records them). Runs the compiled build
// (production layout) unless --from-source.
//
//   npm run bench:snapshots [-- --rows N] [--repeat N] [--10m] [--xlsx-rows N] [--from-source] [--keep] [--record-outputs]
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  prng,
  stockRow,
  writeCsvFile,
  writeXlsxFile,
} from "../src/pipelines/snapshots/fake/supplier-files.ts";
import { checkDigests, type Digests, runDigests } from "./snapshots-outputs.ts";
import {
  type CsvRuns,
  csvSummary,
  type Duck,
  type Ingestion,
  secs,
  tenMillionSummary,
  xlsxSummary,
} from "./snapshots-summary.ts";
import { duckdbTransform, rowIdOf, writeConfig } from "./snapshots-support.ts";
import { xlsxFloor } from "./snapshots-xlsx-floor.ts";
import { benchArgs } from "./support/argv.ts";
import { buildDist, type ChildRun, type CliEntry, runCli, sourceEntry } from "./support/cli-run.ts";

const { flag, num } = benchArgs();
const ROWS = num("--rows", 1_000_000);
/**
 * Repetitions of the 1M ingestion and of DuckDB, interleaved so that a noisy neighbour slows
 * both alike; medians are reported.
 */
const REPEAT = num("--repeat", 5);
const XLSX_ROWS = num("--xlsx-rows", 200_000, 14);

const CSV_CONFIG = `min_fact_count: 1
max_bad_ratio: 0.10
allow_empty_snapshot: false
format: csv
key: sku
file_stability_window: 0
categories: { from: column, column: category }
columns:
  - { name: sku, type: string, required: true }
  - { name: qty, type: integer, required: true }
  - { name: price, type: decimal, minor_units: 2, as: price_minor, required: true }
  - { name: name, type: string }
`;
const XLSX_CONFIG = CSV_CONFIG.replace("format: csv", "format: xlsx").replace(
  "categories: { from: column, column: category }",
  "categories: { from: sheet }",
);

const work = mkdtempSync(path.join(tmpdir(), "tidemark-bench-snapshots-"));
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * Runs `tidemark snapshots run <supplier> --json` in a fresh process on a data dir. The data
 * dir is an installed one: its database schema is created first (`tidemark db migrate`, not
 * timed), as the first command of any installation does once; the timed process is the
 * ingestion.
 */
async function ingest(
  entry: CliEntry,
  label: string,
  dataDir: string,
  supplier: string,
  rows: number,
): Promise<Ingestion> {
  const env = {
    TIDEMARK_DATA_DIR: dataDir,
    TIDEMARK_DATABASE_URL: `sqlite:${path.join(dataDir, "tidemark.db")}`,
    TIDEMARK_LOG_LEVEL: "warn",
  };
  if (!existsSync(path.join(dataDir, "tidemark.db"))) {
    const migrate = await runCli(entry, ["db", "migrate"], env, work);
    if (migrate.code !== 0)
      throw new Error(`${label}: db migrate exit ${migrate.code}\n${migrate.stderr}`);
  }
  const run = await runCli(entry, ["snapshots", "run", supplier, "--json"], env, work);
  if (run.code !== 0) throw new Error(`${label}: exit ${run.code}\n${run.stdout}\n${run.stderr}`);
  const out = JSON.parse(run.stdout) as {
    result: { status: string; run_id: string; good_rows: number };
  };
  // The ingestion's own phases (without process start-up), from stats.json.
  const stats = JSON.parse(
    readFileSync(
      path.join(dataDir, "etl_data", "raw_v1", "runs", out.result.run_id, "stats.json"),
      "utf8",
    ),
  ) as { timing_ms?: Record<string, number> };
  const engineMs = Object.values(stats.timing_ms ?? {}).reduce((a, b) => a + b, 0);
  console.log(
    `  ${label}: ${out.result.status}, ${out.result.good_rows} facts, wall ${secs(run.wallMs)} (${Math.round(rows / (run.wallMs / 1000)).toLocaleString("en")} rows/s), phases ${JSON.stringify(stats.timing_ms)}, CPU ${secs(run.cpuMs)}, peak RSS ${run.peakRssMb.toFixed(0)} MB`,
  );
  const runDir = path.join(dataDir, "etl_data", "raw_v1", "runs", out.result.run_id);
  return { label, rows, run, engineMs, timing: stats.timing_ms, status: out.result.status, runDir };
}

/** A data dir with the supplier's config and the file hard-linked into its inbox. */
function dataDirWith(name: string, supplier: string, config: string, file: string): string {
  const dataDir = path.join(work, name);
  writeConfig(dataDir, supplier, config);
  const inbox = path.join(dataDir, "etl_data", "raw_v1", "inbox", supplier);
  mkdirSync(inbox, { recursive: true });
  linkSync(file, path.join(inbox, path.basename(file)));
  return dataDir;
}

/**
 * Per repetition: the ingestion of the 1M file as a new supplier, DuckDB on the same file, then
 * the second file ingested against the state the first left (the diff run). Interleaved, so a
 * noisy neighbour slows each pair alike.
 */
async function csvRuns(
  entry: CliEntry,
  csv: string,
  next: string,
  digests: Record<string, Digests>,
): Promise<CsvRuns> {
  const runs: CsvRuns = { firsts: [], ducks: [], diffs: [], dataDir: "" };
  const duckOut = path.join(work, "duckdb.ndjson");
  for (let i = 0; i < REPEAT; i++) {
    // Only the last data dir is used afterwards; each holds ~600 MB of facts.
    if (runs.dataDir) rmSync(runs.dataDir, { recursive: true, force: true });
    runs.dataDir = dataDirWith(`data-csv-${i}`, "bench", CSV_CONFIG, csv);
    const first = await ingest(
      entry,
      `ingestion #${i + 1} (new supplier)`,
      runs.dataDir,
      "bench",
      ROWS,
    );
    runs.firsts.push(first);
    if (i === 0) digests["csv-1m"] = await runDigests(first.runDir, work);
    const d = await duckdbTransform(csv, duckOut, work);
    console.log(
      `  DuckDB core transform #${i + 1}: ${secs(d.processMs)} wall incl. process start, query ${secs(d.queryMs)}, CPU ${secs(d.cpuMs)} (${Math.round(ROWS / (d.processMs / 1000)).toLocaleString("en")} rows/s); pair ratio ${(first.run.wallMs / d.processMs).toFixed(2)} wall, ${(first.run.cpuMs / d.cpuMs).toFixed(2)} CPU`,
    );
    runs.ducks.push(d);
    linkSync(next, path.join(runs.dataDir, "etl_data", "raw_v1", "inbox", "bench", "next.csv"));
    const diff = await ingest(
      entry,
      `diff run #${i + 1} (second file against that 1M state)`,
      runs.dataDir,
      "bench",
      ROWS,
    );
    console.log(
      `    ratio to ingestion #${i + 1}: ${(diff.run.wallMs / first.run.wallMs).toFixed(2)} wall`,
    );
    runs.diffs.push(diff);
    if (i === 0) digests["csv-1m-diff"] = await runDigests(diff.runDir, work);
  }
  return runs;
}

/** The 10M-row file once, and DuckDB on it. */
async function tenMillion(entry: CliEntry): Promise<{ ten: Ingestion; duck: Duck }> {
  const t = performance.now();
  const big = path.join(work, "snapshot-10m.csv");
  const bigBytes = await writeCsvFile(big, ROWS * 10, 3);
  console.log(
    `\nGenerated ${(ROWS * 10).toLocaleString("en")}-row CSV: ${mb(bigBytes)} in ${secs(performance.now() - t)}`,
  );
  const dir = dataDirWith("data-10m", "bench", CSV_CONFIG, big);
  const ten = await ingest(entry, "ingestion 10x", dir, "bench", ROWS * 10);
  rmSync(dir, { recursive: true, force: true });
  const duck = await duckdbTransform(big, path.join(work, "duckdb.ndjson"), work);
  console.log(`  DuckDB core transform 10x: ${secs(duck.processMs)}`);
  rmSync(big, { force: true });
  return { ten, duck };
}

/** The 14-sheet workbook, each ingestion paired with the bare exceljs read of it. */
async function xlsxRuns(
  entry: CliEntry,
  digests: Record<string, Digests>,
): Promise<{ xs: Ingestion[]; floors: ChildRun[] }> {
  const t = performance.now();
  const xlsx = path.join(work, "snapshot-14-sheets.xlsx");
  const perSheet = Math.ceil(XLSX_ROWS / 14);
  const rnd = prng(4);
  await writeXlsxFile(
    xlsx,
    Array.from({ length: 14 }, (_, s) => ({
      name: `Категория ${s + 1}`,
      rows: Array.from({ length: Math.min(perSheet, XLSX_ROWS - s * perSheet) }, (_, i) =>
        stockRow(s * perSheet + i, rnd),
      ),
    })),
  );
  console.log(
    `\nGenerated 14-sheet XLSX, ${XLSX_ROWS.toLocaleString("en")} rows: ${mb(statSync(xlsx).size)} in ${secs(performance.now() - t)}`,
  );
  const xs: Ingestion[] = [];
  const floors: ChildRun[] = [];
  for (let i = 0; i < Math.min(REPEAT, 3); i++) {
    const dir = dataDirWith(`data-xlsx-${i}`, "book", XLSX_CONFIG, xlsx);
    xs.push(await ingest(entry, `XLSX ingestion #${i + 1}`, dir, "book", XLSX_ROWS));
    if (i === 0) digests.xlsx = await runDigests(xs[0]!.runDir, work, true);
    rmSync(dir, { recursive: true, force: true });
    const f = await xlsxFloor(xlsx, work);
    console.log(
      `  XLSX floor #${i + 1} (bare exceljs streaming read, ${f.stdout.trim()} rows): ${secs(f.wallMs)}, CPU ${secs(f.cpuMs)}, peak RSS ${f.peakRssMb.toFixed(0)} MB; pair ratio ${(xs[i]!.run.wallMs / f.wallMs).toFixed(2)} wall, ${(xs[i]!.run.cpuMs / f.cpuMs).toFixed(2)} CPU`,
    );
    floors.push(f);
  }
  return { xs, floors };
}

async function main(): Promise<void> {
  console.log(`Snapshots benchmark in ${work}`);
  let t = performance.now();
  const entry = flag("--from-source") ? sourceEntry() : await buildDist(path.join(work, "pkg"));
  console.log(
    `CLI: ${entry.kind === "dist" ? `bundled build (${secs(performance.now() - t)} to build)` : "TypeScript sources via tsx"}`,
  );
  console.log(
    "Each ingestion: a fresh process on an installed data dir (schema created first by `tidemark db migrate`, not timed)",
  );
  t = performance.now();
  const csv = path.join(work, "snapshot-1m.csv");
  const bytes = await writeCsvFile(csv, ROWS, 1);
  const next = path.join(work, "snapshot-1m-next.csv");
  await writeCsvFile(next, ROWS, 2);
  console.log(
    `\nGenerated ${ROWS.toLocaleString("en")}-row CSV: ${mb(bytes)}, and a second one changed, in ${secs(performance.now() - t)}`,
  );
  const digests: Record<string, Digests> = {};
  const csvs = await csvRuns(entry, csv, next, digests);
  const runsDir = path.join(csvs.dataDir, "etl_data", "raw_v1", "runs");
  const firstRun = readdirSync(runsDir).sort()[0]!;
  const ours = await rowIdOf(path.join(runsDir, firstRun, "facts.ndjson"), "SKU-00000000");
  const theirs = await rowIdOf(path.join(work, "duckdb.ndjson"), "SKU-00000000");
  console.log(
    `  row_id of SKU-00000000: Tidemark ${ours?.slice(0, 16)}…, DuckDB ${theirs?.slice(0, 16)}… (${ours === theirs ? "identical" : "DIFFERENT"})`,
  );
  const big = flag("--10m") ? await tenMillion(entry) : undefined;
  const { xs, floors } = await xlsxRuns(entry, digests);

  console.log("\nSummary");
  console.log(`  (medians of ${REPEAT} interleaved runs)`);
  const oneMillionRss = csvSummary(csvs, ROWS);
  if (big) tenMillionSummary(big, oneMillionRss, ROWS);
  else
    console.log("  10M CSV: skipped (run with --10m; takes a few minutes and ~2 GB of temp disk)");
  xlsxSummary(xs, floors, XLSX_ROWS);
  const check = checkDigests(
    digests,
    { rows: ROWS, xlsxRows: XLSX_ROWS },
    flag("--record-outputs"),
  );
  for (const line of check.lines) console.log(line);
  if (!check.ok) process.exitCode = 1;
}

try {
  await main();
} finally {
  if (!flag("--keep")) rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
}
