/**
 * Helpers of bench/snapshots.ts: supplier configs, DuckDB's version of the transform, and
 * reading a row id back. Running the CLI is bench/support/cli-run.ts.
 */
import { spawnSync } from "node:child_process";
import { createReadStream, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";

/** Writes a supplier config. */
export function writeConfig(dataDir: string, supplier: string, yaml: string): void {
  const dir = path.join(dataDir, "etl_ops", "config");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${supplier}.yaml`), yaml);
}

/** DuckDB's SQL for the core transform (CSV → sorted-key JSON payload → SHA-256 → NDJSON). */
function duckdbSql(csv: string, out: string): string {
  const q = (v: string) => `'${v.replace(/'/g, "''")}'`;
  return `COPY (
    WITH src AS (SELECT * FROM read_csv(${q(csv)}, header = true, all_varchar = true)),
    p AS (
      SELECT category, json_object(
        'name', name,
        'price_minor', CAST(CAST(price AS DECIMAL(18, 2)) * 100 AS BIGINT),
        'qty', CAST(qty AS BIGINT),
        'sku', sku)::VARCHAR AS payload
      FROM src)
    SELECT 'bench_run' AS run_id, 'bench' AS supplier, category AS category_key,
           sha256(payload) AS row_id, json(payload) AS payload
    FROM p
  ) TO ${q(out)} (FORMAT json)`;
}

/**
 * DuckDB doing the core transform on the same CSV: read it, build each payload as a JSON
 * object with sorted keys (price as integer minor units), SHA-256 it, write NDJSON. Measured
 * like the ingestion: a fresh process, wall time from spawn to exit (`processMs`), and the
 * query alone inside it (`queryMs`).
 */
export async function duckdbTransform(
  csv: string,
  out: string,
  workDir: string,
): Promise<{ processMs: number; queryMs: number; cpuMs: number }> {
  const script = path.join(workDir, "duckdb.mjs");
  writeFileSync(
    script,
    `const { DuckDBInstance } = await import(${JSON.stringify(import.meta.resolve("@duckdb/node-api"))});
const t = performance.now();
const instance = await DuckDBInstance.create(":memory:");
const con = await instance.connect();
await con.run(${JSON.stringify(duckdbSql(csv, out))});
con.closeSync();
instance.closeSync();
const u = process.resourceUsage();
process.stdout.write(String(performance.now() - t) + " " + (u.userCPUTime + u.systemCPUTime) / 1000);
`,
  );
  const started = performance.now();
  const r = spawnSync(process.execPath, [script], { encoding: "utf8" });
  const processMs = performance.now() - started;
  if (r.status !== 0) throw new Error(`duckdb failed: ${r.stderr}`);
  const [queryMs, cpuMs] = r.stdout.split(" ").map(Number) as [number, number];
  return { processMs, queryMs, cpuMs };
}

/** The row_id a NDJSON file gives the row whose payload.sku is `sku` (first match). */
export async function rowIdOf(file: string, sku: string): Promise<string | undefined> {
  const needle = `"sku":"${sku}"`;
  const lines = createInterface({ input: createReadStream(file) });
  for await (const line of lines) {
    if (line.includes(needle)) {
      lines.close();
      return (JSON.parse(line) as { row_id: string }).row_id;
    }
  }
  return undefined;
}
