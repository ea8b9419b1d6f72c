import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { testTempDir } from "../../testing/temp-dir.ts";
import { ConfigError } from "../errors.ts";
import { databaseFailure } from "./database-failure.ts";

/** The error better-sqlite3 throws when a write meets a read-only database. */
function readOnlyWriteError(): Error {
  const file = path.join(testTempDir("tm-dbfail-"), "x.db");
  new BetterSqlite3(file).exec("CREATE TABLE t (a)").close();
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    db.exec("INSERT INTO t VALUES (1)");
  } catch (err) {
    return err as Error;
  } finally {
    db.close();
  }
  throw new Error("the write should have failed");
}

describe("databaseFailure", () => {
  it("a read-only SQLite file is one line naming it and what to check", () => {
    const failure = databaseFailure(readOnlyWriteError(), "/srv/data/tidemark.db");
    expect(failure).toBeInstanceOf(ConfigError);
    expect(failure?.message).toBe(
      "database /srv/data/tidemark.db: cannot write: the database is read-only (check the permissions of the file, its -wal and -shm files and its folder)",
    );
  });

  it("keeps a wrapping error's words as context (a failed migration)", () => {
    const inner = readOnlyWriteError();
    const wrapped = new Error(`migration failed in engine/0002-queue: ${inner.message}`, {
      cause: inner,
    });
    expect(databaseFailure(wrapped, "/d/t.db")?.message).toBe(
      "database /d/t.db: migration failed in engine/0002-queue: cannot write: the database is read-only (check the permissions of the file, its -wal and -shm files and its folder)",
    );
  });

  it("names a Postgres connection lost mid-command or a missing privilege", () => {
    const where = "postgres://app:***@db:5432/x";
    const lost = Object.assign(new Error("terminating connection due to administrator command"), {
      code: "57P01",
    });
    expect(databaseFailure(lost, where)?.message).toBe(
      `database ${where}: connection lost (terminating connection due to administrator command)`,
    );
    const denied = Object.assign(new Error("permission denied for table jobs"), { code: "42501" });
    expect(databaseFailure(denied, where)?.message).toBe(
      `database ${where}: permission denied (permission denied for table jobs)`,
    );
    expect(databaseFailure(new Error("Connection terminated unexpectedly"), where)?.message).toBe(
      `database ${where}: connection lost (Connection terminated unexpectedly)`,
    );
  });

  it("leaves other errors (and ones that already say where) alone", () => {
    expect(databaseFailure(new Error("boom"), "/d/t.db")).toBeUndefined();
    expect(databaseFailure(new ConfigError("database /d/t.db: cannot open"), "/d/t.db")).toBe(
      undefined,
    );
    expect(databaseFailure(readOnlyWriteError(), undefined)).toBeUndefined();
  });
});
