import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe } from "vitest";
import type { DatabaseTarget } from "../infra/config/load-config.ts";
import type { DialectName } from "../infra/db/dialect.ts";
import { type Database, openDatabase } from "../infra/db/open-database.ts";

/** Dialects this test process runs: SQLite always, Postgres when TIDEMARK_TEST_PG_URL is set. */
export function testDialects(): DialectName[] {
  const url = process.env.TIDEMARK_TEST_PG_URL;
  if (!url && process.env.CI) {
    throw new Error(
      "CI is set but TIDEMARK_TEST_PG_URL is not: Postgres tests cannot be skipped on CI",
    );
  }
  return url ? ["sqlite", "postgres"] : ["sqlite"];
}

/** Every dialect the matrix knows; the ones `testDialects()` leaves out are registered skipped. */
const ALL_DIALECTS: readonly DialectName[] = ["sqlite", "postgres"];

function pgAdminUrl(): string {
  const url = process.env.TIDEMARK_TEST_PG_URL;
  if (!url) throw new Error("TIDEMARK_TEST_PG_URL is not set: no Postgres server for this test");
  return url;
}

/** What a dialect-matrix suite gets: fresh, empty databases of one dialect. */
export interface DialectHarness {
  readonly dialect: DialectName;
  /** A new empty database (SQLite file or Postgres database), removed after the suite. */
  freshTarget(): Promise<DatabaseTarget>;
  /** Opens a new empty database; closed and removed after the suite. */
  freshDatabase(): Promise<Database>;
}

async function createPgDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const { default: pg } = await import("pg");
  const name = `tm_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * Registers the suite once per dialect (`title [sqlite]`, `title [postgres]`), so every
 * database test runs on both from one body. A dialect without a server (Postgres without
 * TIDEMARK_TEST_PG_URL) is registered skipped, so Vitest counts its tests as skipped and the
 * run's closing line (`test/support/postgres-skip-reporter.ts`) says how many and why.
 */
export function describeEachDialect(title: string, body: (h: DialectHarness) => void): void {
  const dialects = testDialects();
  for (const dialect of ALL_DIALECTS) {
    const register = dialects.includes(dialect) ? describe : describe.skip;
    register(`${title} [${dialect}]`, () => {
      const cleanups: Array<() => Promise<void> | void> = [];
      const harness: DialectHarness = {
        dialect,
        async freshTarget() {
          if (dialect === "sqlite") {
            const dir = mkdtempSync(path.join(tmpdir(), "tm-db-"));
            cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
            return { dialect, path: path.join(dir, "tidemark.db"), busyTimeoutMs: 5000 };
          }
          const created = await createPgDatabase(pgAdminUrl());
          cleanups.push(() => created.drop());
          return { dialect, url: created.url };
        },
        async freshDatabase() {
          const db = await openDatabase(await harness.freshTarget());
          // Closed before the database is dropped (cleanups run in reverse).
          cleanups.push(() => db.close());
          return db;
        },
      };
      afterAll(async () => {
        for (const c of cleanups.reverse()) await c();
      });
      body(harness);
    });
  }
}
