// The summary of the snapshots benchmark (bench/snapshots.ts): each workload's medians, its
// pairs with the peer, and every target with OK or OVER.
import type { duckdbTransform } from "./snapshots-support.ts";
import type { ChildRun } from "./support/cli-run.ts";

/** One `tidemark snapshots run` process and what its run recorded. */
export interface Ingestion {
  label: string;
  rows: number;
  run: ChildRun;
  engineMs: number;
  timing: Record<string, number> | undefined;
  status: string;
  /** The run's folder (runs/<run_id>). */
  runDir: string;
}

/** One DuckDB process doing the core transform. */
export type Duck = Awaited<ReturnType<typeof duckdbTransform>>;

/** The 1M CSV workloads, each repetition in a fresh data dir. */
export interface CsvRuns {
  firsts: Ingestion[];
  ducks: Duck[];
  /** The second file diffed against each repetition's 1M state, right after it. */
  diffs: Ingestion[];
  /** The last repetition's data dir (kept for the row-id check). */
  dataDir: string;
}

export const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const ok = (good: boolean) => (good ? "OK" : "OVER");
const median = <T>(xs: T[], key: (x: T) => number): T =>
  [...xs].sort((a, b) => key(a) - key(b))[Math.floor(xs.length / 2)]!;
const sortedRatios = (xs: number[]) => xs.sort((a, b) => a - b).map((r) => r.toFixed(2));
const perSecond = (rows: number, ms: number) => Math.round(rows / (ms / 1000)).toLocaleString("en");

/**
 * The 1M CSV lines of the summary: against DuckDB, and the diff run against the first. Returns
 * the 1M runs' median peak RSS (the median of the figure itself, not the RSS of the run of
 * median time: one run's RSS moves by ±10 MB with when its collections fall).
 */
export function csvSummary(r: CsvRuns, rows: number): number {
  const first = median(r.firsts, (f) => f.run.wallMs);
  const rss = median(r.firsts, (f) => f.run.peakRssMb).run.peakRssMb;
  const rssRuns = r.firsts.map((f) => f.run.peakRssMb).sort((a, b) => a - b);
  const duck = median(r.ducks, (d) => d.processMs);
  const duckQuery = median(r.ducks, (d) => d.queryMs).queryMs;
  const ratio = first.run.wallMs / duck.processMs;
  console.log(
    `  1M CSV: ${secs(first.run.wallMs)} wall incl. process start (${secs(first.engineMs)} in the ingestion phases), ${perSecond(rows, first.run.wallMs)} rows/s, peak RSS ${rss.toFixed(0)} MB (runs ${rssRuns[0]!.toFixed(0)}–${rssRuns.at(-1)!.toFixed(0)}; target <= 300 in every run: ${ok(rssRuns.at(-1)! <= 300)})`,
  );
  console.log(
    `  DuckDB: ${secs(duck.processMs)} wall incl. process start (${secs(duckQuery)} the query); ratio Tidemark/DuckDB ${ratio.toFixed(2)} process to process (target <= 1.0: ${ok(ratio <= 1.0)}), ${(first.engineMs / duckQuery).toFixed(2)} ingestion phases to query`,
  );
  const pairs = sortedRatios(r.firsts.map((f, i) => f.run.wallMs / r.ducks[i]!.processMs));
  console.log(`  pair ratios (wall): ${pairs.join(" ")}`);
  // CPU time (all threads) moves far less with the neighbours' load than wall time does.
  const cpu = sortedRatios(r.firsts.map((f, i) => f.run.cpuMs / r.ducks[i]!.cpuMs));
  console.log(
    `  CPU: Tidemark ${secs(median(r.firsts, (f) => f.run.cpuMs).run.cpuMs)}, DuckDB ${secs(median(r.ducks, (d) => d.cpuMs).cpuMs)}; pair ratios ${cpu.join(" ")} (median ${cpu[Math.floor(cpu.length / 2)]})`,
  );
  const diff = median(r.diffs, (d) => d.run.wallMs);
  const diffPairs = sortedRatios(r.diffs.map((d, i) => d.run.wallMs / r.firsts[i]!.run.wallMs));
  console.log(
    `  1M CSV, second run with diff: ${secs(diff.run.wallMs)}, CPU ${secs(median(r.diffs, (d) => d.run.cpuMs).run.cpuMs)}, peak RSS ${diff.run.peakRssMb.toFixed(0)} MB; pair ratios to the first run ${diffPairs.join(" ")} (target no slower than the first: ${ok(diff.run.wallMs <= first.run.wallMs)})`,
  );
  return rss;
}

/** The 10M CSV line: its peak RSS against the 1M runs' median, its time against DuckDB's. */
export function tenMillionSummary(
  big: { ten: Ingestion; duck: Duck },
  oneMillionRss: number,
  rows: number,
): void {
  const growth = big.ten.run.peakRssMb / oneMillionRss - 1;
  const ratio = big.ten.run.wallMs / big.duck.processMs;
  console.log(
    `  10M CSV: ${secs(big.ten.run.wallMs)}, ${perSecond(rows * 10, big.ten.run.wallMs)} rows/s, peak RSS ${big.ten.run.peakRssMb.toFixed(0)} MB (${(growth * 100).toFixed(1)}% vs the 1M runs' median; target within 10%: ${ok(Math.abs(growth) <= 0.1)}); DuckDB ${secs(big.duck.processMs)}, ratio ${ratio.toFixed(2)} (target <= 1.0: ${ok(ratio <= 1.0)})`,
  );
}

/** The XLSX line: the ingestions against the bare exceljs reads of the same workbook. */
export function xlsxSummary(xs: Ingestion[], floors: ChildRun[], rows: number): void {
  const x = median(xs, (r) => r.run.wallMs);
  const floor = median(floors, (f) => f.wallMs);
  const ratio = x.run.wallMs / floor.wallMs;
  const pairs = sortedRatios(xs.map((r, i) => r.run.wallMs / floors[i]!.wallMs));
  console.log(
    `  XLSX 14 sheets: ${secs(x.run.wallMs)}, ${perSecond(rows, x.run.wallMs)} rows/s, peak RSS ${x.run.peakRssMb.toFixed(0)} MB (target <= 300: ${ok(x.run.peakRssMb <= 300)}); floor ${secs(floor.wallMs)} (${floor.peakRssMb.toFixed(0)} MB), ratio ${ratio.toFixed(2)} (target <= 1.3: ${ok(ratio <= 1.3)}), pair ratios ${pairs.join(" ")}; CPU ${secs(x.run.cpuMs)} against ${secs(floor.cpuMs)}, ${(x.run.cpuMs / floor.cpuMs).toFixed(2)}`,
  );
}
