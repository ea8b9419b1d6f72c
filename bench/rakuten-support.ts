/**
 * Helpers of bench/rakuten.ts: running one phase in a child process, and counting row writes
 * of the domain tables with SQLite triggers (so "0 domain writes" is counted, not assumed).
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, symlinkSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { bundleScript } from "../scripts/build.ts";
import type { PhaseInput } from "./rakuten-child.ts";
import { ROOT } from "./support/cli-run.ts";
import { spawnCollect } from "./support/spawn-collect.ts";

/** The bundled child (see bundleChild); the TypeScript source through tsx until it is built. */
let childArgs = ["--import", "tsx", new URL("./rakuten-child.ts", import.meta.url).pathname];

/**
 * Bundles bench/rakuten-child.ts into `dir` like dist/ (node_modules linked there), so that each
 * phase's CPU and peak RSS are those of the product as installed, not of tsx's loader thread.
 */
export async function bundleChild(dir: string): Promise<void> {
  const out = path.join(dir, "rakuten-child.mjs");
  await bundleScript(path.join(ROOT, "bench", "rakuten-child.ts"), out);
  const modules = path.join(dir, "node_modules");
  if (!existsSync(modules)) symlinkSync(path.join(ROOT, "node_modules"), modules);
  childArgs = [out];
}

/** Runs bench/rakuten-child.ts with `input`; resolves its JSON line. `onSpawn` gets the child. */
export async function runPhase(
  input: PhaseInput,
  onSpawn?: (child: ChildProcess) => void,
): Promise<Record<string, unknown> & { ms: number; rssMb: number }> {
  // BENCH_CPU_PROF=<dir>: a V8 CPU profile of every phase, to find where the time goes.
  const prof = process.env.BENCH_CPU_PROF;
  const flags = prof ? ["--cpu-prof", "--cpu-prof-dir", prof] : [];
  const run = await spawnCollect([...flags, ...childArgs, JSON.stringify(input)], {
    onSpawn,
  });
  if (process.env.BENCH_SQL_PROFILE)
    process.stdout.write(run.stderr.replace(/^npm warn.*\n/gm, ""));
  const line = run.stdout.trim().split("\n").pop() ?? "";
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(
      `phase ${input.phase} ${input.jobType ?? ""} exit ${run.code}: ${run.stderr || run.stdout}`,
    );
  }
}

/** The item job's domain tables (apl_* on SQLite) and the ledger. */
export const DOMAIN_TABLES = [
  "apl_item",
  "apl_item_image",
  "apl_item_tag",
  "apl_market_snapshot",
  "apl_review_snapshot",
  "apl_shop",
];
export const LEDGER_TABLE = "apl_staging";

/** Installs insert/update/delete triggers counting row writes per table into bench_writes. */
export function installWriteCounters(dbPath: string): void {
  const db = new Database(dbPath);
  try {
    db.exec("create table if not exists bench_writes (tbl text primary key, n integer not null)");
    for (const t of [...DOMAIN_TABLES, LEDGER_TABLE]) {
      db.prepare("insert or replace into bench_writes (tbl, n) values (?, 0)").run(t);
      for (const op of ["insert", "update", "delete"]) {
        db.exec(`create trigger if not exists bench_${t}_${op} after ${op} on ${t}
          begin update bench_writes set n = n + 1 where tbl = '${t}'; end`);
      }
    }
  } finally {
    db.close();
  }
}

/** Reads and zeroes the counters: {domain, ledger, byTable}. */
export function takeWriteCounts(dbPath: string): {
  domain: number;
  ledger: number;
  byTable: Record<string, number>;
} {
  const db = new Database(dbPath);
  try {
    const rows = db.prepare("select tbl, n from bench_writes").all() as Array<{
      tbl: string;
      n: number;
    }>;
    db.exec("update bench_writes set n = 0");
    const byTable = Object.fromEntries(rows.map((r) => [r.tbl, r.n]));
    const domain = DOMAIN_TABLES.reduce((s, t) => s + (byTable[t] ?? 0), 0);
    return { domain, ledger: byTable[LEDGER_TABLE] ?? 0, byTable };
  } finally {
    db.close();
  }
}

/** Drops the counting triggers (the reapply phase is timed without them). */
export function dropWriteCounters(dbPath: string): void {
  const db = new Database(dbPath);
  try {
    for (const t of [...DOMAIN_TABLES, LEDGER_TABLE]) {
      for (const op of ["insert", "update", "delete"])
        db.exec(`drop trigger if exists bench_${t}_${op}`);
    }
  } finally {
    db.close();
  }
}

/** Simulates an apply-version bump: every applied item row now carries the previous version. */
export function bumpItemApplyVersion(dbPath: string): number {
  const db = new Database(dbPath);
  try {
    return db
      .prepare(
        "update apl_staging set applied_version = applied_version - 1 where entity = 'item' and applied_version is not null",
      )
      .run().changes;
  } finally {
    db.close();
  }
}
