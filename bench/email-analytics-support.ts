/**
 * Helpers of bench/email-analytics.ts: the fake Mailgun and the Ghost peer in child processes,
 * fresh databases on both dialects, the Ghost job rows the fetch starts from, and the check of
 * the resulting counts against what the campaign generator expects.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Kysely } from "kysely";
import type { DatabaseTarget } from "../src/infra/config/load-config.ts";
import { openDatabase } from "../src/infra/db/open-database.ts";
import type { CampaignSummary } from "../src/pipelines/email-analytics/fake/fake-types.ts";
import type { EmailAnalyticsTables } from "../src/pipelines/email-analytics/tables.ts";
import { ROOT } from "./support/cli-run.ts";

/** The fake's answer on start. */
export interface FakeInfo {
  url: string;
  apiKey: string;
  domain: string;
  env: Record<string, string>;
  generateMs: number;
  summary: CampaignSummary;
}

const TSX = path.join(ROOT, "node_modules", ".bin", "tsx");

/** Starts bench/email-analytics-fake.ts; resolves with its info and a stop function. */
export async function startFakeChild(
  input: unknown,
): Promise<{ info: FakeInfo; stop(): Promise<string> }> {
  const child: ChildProcess = spawn(
    TSX,
    [path.join(ROOT, "bench", "email-analytics-fake.ts"), JSON.stringify(input)],
    {
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`fake exited ${code}: ${stderr}`)));
  });
  return {
    info: JSON.parse(first) as FakeInfo,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve(/@@fake (.*)/.exec(stderr)?.[1] ?? ""));
        child.stdin?.end();
      }),
  };
}

/** Runs the Ghost peer; returns its report and the process's wall time and peak RSS. */
export async function runGhostPeer(input: unknown): Promise<{
  report: {
    events: number;
    counts: Record<string, number>;
    fetchedMs: number;
    totalMs: number;
    peakRssMb: number;
    members: number;
    emails: number;
  };
  wallMs: number;
}> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      TSX,
      [path.join(ROOT, "bench", "email-analytics-ghost-peer.ts"), JSON.stringify(input)],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`ghost peer exited ${code}: ${err.slice(-2000)}`));
      else
        resolve({
          report: JSON.parse(out.trim().split("\n").at(-1) as string),
          wallMs: performance.now() - started,
        });
    });
  });
}

/** A fresh database: a SQLite file in `dir`, or a new Postgres database next to `pgUrl`'s. */
export async function freshTarget(
  dialect: "sqlite" | "postgres",
  dir: string,
  pgUrl: string | undefined,
  cleanups: Array<() => Promise<void>>,
): Promise<{ target: DatabaseTarget; url: string }> {
  const name = `tm_bench_ea_${randomBytes(4).toString("hex")}`;
  if (dialect === "sqlite") {
    const file = path.join(dir, `${name}.db`);
    return { target: { dialect, path: file, busyTimeoutMs: 5000 }, url: `sqlite:${file}` };
  }
  const { default: pg } = await import("pg");
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  });
  const url = new URL(pgUrl as string);
  url.pathname = `/${name}`;
  return { target: { dialect, url: url.toString() }, url: url.toString() };
}

/** Runs `fn` on a typed handle of the target, then closes it. */
export async function withDb<T>(
  target: DatabaseTarget,
  fn: (db: Kysely<EmailAnalyticsTables>) => Promise<T>,
): Promise<T> {
  const database = await openDatabase(target);
  try {
    return await fn(database.kysely as unknown as Kysely<EmailAnalyticsTables>);
  } finally {
    await database.close();
  }
}

/** Ghost's latest-fetch job rows, as if the last fetch ended at `at` (a site back from an outage). */
export async function seedJobRows(db: Kysely<EmailAnalyticsTables>, at: Date): Promise<void> {
  const iso = at.toISOString();
  for (const name of ["email-analytics-latest-opened", "email-analytics-latest-others"]) {
    await db
      .insertInto("jobs")
      .values({
        id: randomBytes(12).toString("hex"),
        name,
        status: "finished",
        started_at: iso,
        finished_at: iso,
        created_at: iso,
        updated_at: iso,
        metadata: null,
        queue_entry: null,
      })
      .execute();
  }
}

/** Emails whose delivered/opened/failed counts differ from the generator's expectations. */
export async function countMismatches(
  db: Kysely<EmailAnalyticsTables>,
  summary: CampaignSummary,
): Promise<string[]> {
  const rows = await db
    .selectFrom("emails")
    .select(["id", "delivered_count", "opened_count", "failed_count"])
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out: string[] = [];
  for (const e of summary.expectations) {
    const r = byId.get(e.emailId);
    const got = r ? [r.delivered_count, r.opened_count, r.failed_count] : [];
    const want = [e.delivered, e.opened, e.failed];
    if (got.join() !== want.join())
      out.push(`${e.emailId}: got ${got.join("/")}, want ${want.join("/")}`);
  }
  return out;
}
