import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { keyBucketName } from "../../../src/pipelines/snapshots/stages/intake/layout/tree.ts";
import { csvWorkerThreads } from "../../../src/pipelines/snapshots/stages/parse/byte-csv/csv-worker-pool.ts";
import { dedupeAndDiff } from "../../../src/pipelines/snapshots/stages/publish/artifacts/key-diff.ts";
import { KeyDiffPool } from "../../../src/pipelines/snapshots/stages/publish/artifacts/key-diff-pool.ts";
import { KeyIndexWriter } from "../../../src/pipelines/snapshots/stages/publish/artifacts/key-index.ts";
import { indexLines } from "../../../src/pipelines/snapshots/stages/publish/artifacts/key-lines.ts";
import {
  linesFromTable,
  lineTableOf,
  tableOf,
} from "../../../src/pipelines/snapshots/stages/publish/artifacts/line-table.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Row = { cat: string; key: string; version: number };

function writeIndex(rows: Row[], buckets: number): string {
  const dir = mkdtempSync(path.join(tmpdir(), "tm-keys-"));
  dirs.push(dir);
  const w = new KeyIndexWriter(dir, buckets);
  rows.forEach((r, i) => {
    const rowId = `${String(r.version).padStart(16, "0")}${"f".repeat(48)}`;
    w.add(rowId, i + 2, r.cat === "" ? "" : JSON.stringify(r.cat), JSON.stringify(r.key));
  });
  w.close();
  return dir;
}

/**
 * Line tables beside an index's buckets: none, ones that fit, or broken ones (the last entry
 * missing), which the check must ignore and read the text instead.
 */
type Tables = "none" | "fit" | "broken";
function writeTables(dir: string, buckets: number, tables: Tables): void {
  if (tables === "none") return;
  for (let b = 0; b < buckets; b++) {
    const file = path.join(dir, keyBucketName(b));
    const table = tableOf(indexLines(readFileSync(file)), () => true);
    writeFileSync(lineTableOf(file), tables === "fit" ? table : table.subarray(0, -8));
  }
}

describe("key index dedupe and diff", () => {
  it("matches a plain in-memory diff for any two snapshots and bucket counts (property)", async () => {
    const row = fc.record({
      cat: fc.constantFrom("", "tools", "кат"),
      key: fc.constantFrom("A1", "A2", "Б3", "a\\tb", 'q"x', "😀", "K5", "K6"),
      version: fc.integer({ min: 1, max: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { maxLength: 30 }),
        fc.array(row, { maxLength: 30 }),
        fc.constantFrom(16, 32, 64),
        fc.constantFrom(16, 32, 64),
        fc.boolean(),
        fc.constantFrom<Tables>("none", "fit", "broken"),
        fc.constantFrom<Tables>("none", "fit", "broken"),
        async (before, after, pb, nb, local, prevTables, newTables) => {
          const id = (r: Row) => `${r.cat}\t${r.key}`;
          const first = (rows: Row[]) => {
            const m = new Map<string, Row>();
            for (const r of rows) if (!m.has(id(r))) m.set(id(r), r);
            return m;
          };
          const prev = first(before);
          const next = first(after);
          const prevDir = writeIndex([...prev.values()], pb);
          const dir = writeIndex(after, nb);
          writeTables(prevDir, pb, prevTables);
          writeTables(dir, nb, newTables);
          // The previous buckets as bytes, or as local files the check reads itself (with
          // their line tables, when they have ones that fit).
          const { diff, duplicates } = await dedupeAndDiff(dir, nb, {
            runId: "r",
            buckets: pb,
            read: async (b) => readFileSync(path.join(prevDir, keyBucketName(b))),
            localFile: local ? (b) => path.join(prevDir, keyBucketName(b)) : undefined,
          });
          let added = 0;
          let changed = 0;
          let unchanged = 0;
          for (const [k, r] of next) {
            const p = prev.get(k);
            if (!p) added++;
            else if (p.version === r.version) unchanged++;
            else changed++;
          }
          const removed = [...prev.keys()].filter((k) => !next.has(k)).length;
          expect({
            added: diff.added,
            removed: diff.removed,
            changed: diff.changed,
            unchanged: diff.unchanged,
          }).toEqual({ added, removed, changed, unchanged });
          expect(duplicates.length).toBe(after.length - next.size);
          // Later occurrences are the duplicates: their row numbers are never a key's first.
          const firstRow = new Map<string, number>();
          after.forEach((r, i) => {
            if (!firstRow.has(id(r))) firstRow.set(id(r), i + 2);
          });
          for (const d of duplicates) expect([...firstRow.values()]).not.toContain(d.rowNumber);
          // A bucket rewritten without its duplicates has a line table that fits it again.
          for (let b = 0; b < nb; b++) {
            const file = path.join(dir, keyBucketName(b));
            if (!existsSync(lineTableOf(file))) continue;
            const text = readFileSync(file);
            const fits = linesFromTable(text, readFileSync(lineTableOf(file)));
            if (newTables !== "broken" || fits) {
              expect([...(fits?.hash ?? [])]).toEqual([
                ...indexLines(text).hash.subarray(0, fits?.count ?? 0),
              ]);
              expect(fits?.count).toBe(indexLines(text).count);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("gives the same diff, samples, duplicates and bucket files on worker threads as on one thread", async () => {
    const rows = (n: number, shift: number): Row[] =>
      Array.from({ length: n }, (_, i) => ({
        cat: ["", "tools", "кат"][i % 3]!,
        key: `K${(i * 7 + shift) % (n - 5)}`,
        version: 1 + ((i + shift) % 4 === 0 ? 1 : 0),
      }));
    for (const [pb, nb] of [
      [16, 64],
      [64, 16],
      [32, 32],
    ] as const) {
      const before = rows(3000, 0);
      const after = rows(3200, 3);
      const prevDir = writeIndex(before, pb);
      const previous = {
        runId: "r",
        buckets: pb,
        read: async (b: number) => readFileSync(path.join(prevDir, keyBucketName(b))),
      };
      // The workers also read the previous buckets from their files themselves.
      const local = { ...previous, localFile: (b: number) => path.join(prevDir, keyBucketName(b)) };
      const inline = writeIndex(after, nb);
      const threaded = writeIndex(after, nb);
      const threadedLocal = writeIndex(after, nb);
      const one = await dedupeAndDiff(inline, nb, previous);
      const pool = new KeyDiffPool(2, csvWorkerThreads());
      const two = await dedupeAndDiff(threaded, nb, previous, pool).finally(() => pool.close());
      const poolLocal = new KeyDiffPool(2, csvWorkerThreads());
      const three = await dedupeAndDiff(threadedLocal, nb, local, poolLocal).finally(() =>
        poolLocal.close(),
      );
      expect(one.diff.samples.added.length).toBe(10);
      expect(one.diff.unchanged + one.diff.changed).toBeGreaterThan(0);
      expect(one.duplicates.length).toBeGreaterThan(0);
      expect(two).toEqual(one);
      expect(three).toEqual(one);
      for (let b = 0; b < nb; b++) {
        const name = keyBucketName(b);
        expect(readFileSync(path.join(threaded, name))).toEqual(
          readFileSync(path.join(inline, name)),
        );
        expect(readFileSync(path.join(threadedLocal, name))).toEqual(
          readFileSync(path.join(inline, name)),
        );
      }
    }
  });

  it("takes a previous bucket with no file as empty, and one it cannot read as the run's error", async () => {
    const prevDir = writeIndex(
      Array.from({ length: 40 }, (_, i) => ({ cat: "", key: `K${i}`, version: 1 })),
      16,
    );
    const missing = keyBucketName(5);
    const gone = readFileSync(path.join(prevDir, missing), "utf8").split("\n").filter(Boolean);
    expect(gone.length).toBeGreaterThan(0);
    rmSync(path.join(prevDir, missing));
    const previous = {
      runId: "r",
      buckets: 16,
      read: async () => {
        throw new Error("read instead of the local file");
      },
      localFile: (b: number) => path.join(prevDir, keyBucketName(b)),
    };
    const same = Array.from({ length: 40 }, (_, i) => ({ cat: "", key: `K${i}`, version: 1 }));
    const pool = new KeyDiffPool(2, csvWorkerThreads());
    try {
      const { diff } = await dedupeAndDiff(writeIndex(same, 16), 16, previous, pool);
      // The keys of the missing bucket are new again; every other key is unchanged.
      expect(diff).toMatchObject({ added: gone.length, removed: 0, unchanged: 40 - gone.length });
      rmSync(path.join(prevDir, keyBucketName(6)));
      mkdirSync(path.join(prevDir, keyBucketName(6)));
      await expect(dedupeAndDiff(writeIndex(same, 16), 16, previous, pool)).rejects.toThrow(
        /key index check: .*EISDIR/,
      );
    } finally {
      await pool.close();
    }
  });

  it("reports a bucket the worker cannot read as the run's error", async () => {
    const dir = writeIndex([{ cat: "", key: "A", version: 1 }], 16);
    rmSync(path.join(dir, keyBucketName(3)));
    const pool = new KeyDiffPool(2, csvWorkerThreads());
    await expect(dedupeAndDiff(dir, 16, undefined, pool)).rejects.toThrow(
      /key index check: .*ENOENT/,
    );
    await pool.close();
  });
});
