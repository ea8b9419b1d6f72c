import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { withStatementCache } from "./statement-cache.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open() {
  const dir = mkdtempSync(path.join(tmpdir(), "tidemark-stmt-cache-"));
  dirs.push(dir);
  const raw = new BetterSqlite3(path.join(dir, "db.sqlite"));
  raw.exec("create table t (id integer primary key, v text)");
  return raw;
}

describe("withStatementCache", () => {
  it("hands out one prepared statement per SQL text and the right rows through it", () => {
    const raw = open();
    const db = withStatementCache(raw);
    const insert = db.prepare("insert into t (v) values (?)");
    expect(db.prepare("insert into t (v) values (?)")).toBe(insert);
    insert.run(["a"]);
    db.prepare("insert into t (v) values (?)").run(["b"]);
    expect(db.prepare("select v from t order by id").all([])).toEqual([{ v: "a" }, { v: "b" }]);
    db.close();
    expect(raw.open).toBe(false);
  });

  it("keeps at most `size` statements, dropping the least recently used", () => {
    const raw = open();
    const db = withStatementCache(raw, 2);
    const a = db.prepare("select 1 as a");
    const b = db.prepare("select 2 as b");
    expect(db.prepare("select 1 as a")).toBe(a); // a is now the most recent
    db.prepare("select 3 as c"); // drops b
    expect(db.prepare("select 1 as a")).toBe(a);
    expect(db.prepare("select 2 as b")).not.toBe(b);
    raw.close();
  });

  it("prepares a second statement while the kept one is still being iterated", () => {
    const raw = open();
    raw.exec("insert into t (v) values ('a'), ('b')");
    const db = withStatementCache(raw);
    const sql = "select v from t order by id";
    const first = db.prepare(sql);
    const rows = first.iterate([]);
    expect(rows.next().value).toEqual({ v: "a" });
    const second = db.prepare(sql);
    expect(second).not.toBe(first);
    expect(second.all([])).toEqual([{ v: "a" }, { v: "b" }]);
    expect(rows.next().value).toEqual({ v: "b" });
    rows.return?.();
    raw.close();
  });

  it("sees a table's new columns after a migration alters it", () => {
    const raw = open();
    const db = withStatementCache(raw);
    db.prepare("insert into t (v) values (?)").run(["a"]);
    const select = db.prepare("select * from t");
    expect(select.all([])).toEqual([{ id: 1, v: "a" }]);
    raw.exec("alter table t add column w text default 'x'");
    expect(db.prepare("select * from t").all([])).toEqual([{ id: 1, v: "a", w: "x" }]);
    raw.close();
  });
});
