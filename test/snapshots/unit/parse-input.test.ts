import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  csvField,
  encodeText,
  prng,
  stockRow,
  writeXlsxFile,
} from "../../../src/pipelines/snapshots/fake/supplier-files.ts";
import { supplierConfigSchema } from "../../../src/pipelines/snapshots/stages/intake/config/supplier-config.ts";
import {
  parseInput,
  WORK_KEYS_DIR,
} from "../../../src/pipelines/snapshots/stages/parse/parse-input.ts";
import { ParseThreads } from "../../../src/pipelines/snapshots/stages/parse/parse-threads.ts";
import { dedupeAndDiff } from "../../../src/pipelines/snapshots/stages/publish/artifacts/key-diff.ts";
import { KeyDiffPool } from "../../../src/pipelines/snapshots/stages/publish/artifacts/key-diff-pool.ts";
import { FsSnapshotStorage } from "../../../src/pipelines/snapshots/stages/publish/storage/fs-storage.ts";
import { directIoHere } from "../support/direct-io-here.ts";

const dirs: string[] = [];
const onExt4 = directIoHere(tmpdir());
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const cfg = (extra: Record<string, unknown> = {}) =>
  supplierConfigSchema.parse({
    min_fact_count: 1,
    max_bad_ratio: 1,
    allow_empty_snapshot: false,
    key: "sku",
    categories: { from: "column", column: "category" },
    columns: [
      { name: "sku", required: true },
      { name: "qty", type: "integer", required: true },
      { name: "price", type: "decimal", as: "price_minor" },
      { name: "name" },
    ],
    ...extra,
  });

/** ~3 MB of rows (several 1 MB read chunks), with the awkward cases sprinkled in. */
function awkwardCsv(n: number, eol: string): string {
  const rnd = prng(42);
  const lines = ["sku,name,qty,price,category"];
  for (let i = 0; i < n; i++) {
    const r = stockRow(i, rnd);
    let name = r.name;
    if (i % 97 === 0) name = `две\nстроки «${i}»`;
    if (i % 89 === 0) name = `кавычки "${i}"`;
    let line = `${r.sku},${csvField(name)},${i % 101 === 0 ? "много" : r.qty},${r.price},${r.category}`;
    if (i % 113 === 0) line += ",extra";
    if (i % 127 === 0) line = `${r.sku},"ab"c,1,1.00,${r.category}`;
    if (i % 131 === 0) lines.push("");
    if (i % 137 === 0) line = `SKU-00000001,dup,1,1.00,${r.category}`;
    lines.push(line);
  }
  return `${lines.join(eol)}${eol}`;
}

async function parseWith(
  file: string,
  workers: number,
  config = cfg(),
  textPath = false,
  minBytes = 0,
  threads?: ParseThreads,
  /** fsync on (the outputs synced while written; large CSV facts with direct I/O unless off). */
  durable?: { directIo: boolean },
) {
  const root = mkdtempSync(path.join(tmpdir(), "tm-parse-"));
  dirs.push(root);
  mkdirSync(path.join(root, "inbox", "acme"), { recursive: true });
  writeFileSync(path.join(root, "inbox", "acme", "f.csv"), readFileSync(file));
  const storage = new FsSnapshotStorage(root, durable !== undefined);
  const workDir = await storage.runWorkDir("acme_20260101T000000Z_abcdef");
  const sha256 = createHash("sha256").update(readFileSync(file)).digest("hex");
  const parsed = await parseInput({
    storage,
    key: "inbox/acme/f.csv",
    sha256,
    cfg: config,
    workDir,
    runId: "acme_20260101T000000Z_abcdef",
    supplier: "acme",
    workers,
    parallelMinBytes: minBytes,
    textPath,
    threads,
    directIo: durable?.directIo,
  });
  const keysDir = path.join(workDir, WORK_KEYS_DIR);
  return {
    keysDir,
    buckets: parsed.buckets,
    facts: readFileSync(path.join(workDir, "facts.ndjson"), "utf8"),
    bad: readFileSync(path.join(workDir, "bad.ndjson"), "utf8"),
    keys: readdirSync(keysDir)
      .filter((f) => f.endsWith(".tsv"))
      .map((f) => readFileSync(path.join(keysDir, f), "utf8")),
    /** Line tables the parse wrote beside the buckets (worker threads only). */
    lineTables: readdirSync(keysDir).filter((f) => f.endsWith(".lines")).length,
    totals: parsed.emitter.totals,
    byCategory: Object.fromEntries(parsed.emitter.byCategory),
    byReason: Object.fromEntries(parsed.emitter.byReason),
    encoding: parsed.encoding,
    directWrites: parsed.directWrites,
  };
}

const entry = (name: string, size: number) => ({
  key: `inbox/acme/${name}`,
  name,
  size,
  mtimeMs: 0,
});

describe("worker threads started ahead of the parse", () => {
  it("start for the newest file's likely format when it is big enough to be parsed on them", async () => {
    const cases: Array<[Record<string, unknown>, string, number, number, number]> = [
      [{ format: "csv" }, "f.csv", 8 << 20, 2, 0],
      [{}, "prices.CSV", 8 << 20, 2, 0],
      [{ encoding: "windows-1251" }, "f.txt", 8 << 20, 2, 0],
      [{ format: "csv" }, "f.csv", 1 << 20, 0, 0],
      [{ encoding: "utf-16le" }, "f.csv", 8 << 20, 0, 0],
      [{}, "book.xlsx", 2 << 20, 0, 1],
      [{ format: "xlsx", categories: { from: "sheet" } }, "book.bin", 2 << 20, 0, 1],
      [{ format: "xlsx", categories: { from: "sheet" } }, "book.xlsx", 100_000, 0, 0],
    ];
    for (const [extra, name, size, csv, xlsx] of cases) {
      const threads = new ParseThreads(2, 4);
      threads.warmFor(cfg(extra), entry(name, size));
      expect([name, size, threads.csv.idle, threads.xlsx.idle]).toEqual([name, size, csv, xlsx]);
      await threads.close();
      expect(threads.csv.idle + threads.xlsx.idle).toBe(0);
    }
    // The hash of the inbox keeps one core busy: on two cores, one CSV thread starts then.
    const twoCores = new ParseThreads(2, 2);
    twoCores.warmFor(cfg(), entry("f.csv", 8 << 20));
    expect(twoCores.csv.idle).toBe(1);
    await twoCores.close();
    const oneCore = new ParseThreads(2, 1);
    oneCore.warmFor(cfg(), entry("f.csv", 8 << 20));
    expect(oneCore.csv.idle).toBe(0);
    const none = new ParseThreads(0);
    none.warmFor(cfg(), entry("f.csv", 8 << 20));
    none.warmFor(cfg(), undefined);
    expect(none.csv.idle).toBe(0);
  });
});

describe("CSV read paths", () => {
  for (const [label, eol, encoding] of [
    ["LF, UTF-8", "\n", "utf-8"],
    ["CRLF, windows-1251", "\r\n", "windows-1251"],
  ] as const) {
    it(`byte-level batches, inline or on worker threads, equal the text path byte for byte (${label})`, async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "tm-csv-"));
      dirs.push(dir);
      const file = path.join(dir, "big.csv");
      writeFileSync(file, encodeText(awkwardCsv(30_000, eol), encoding, encoding === "utf-8"));
      const config = cfg({ encoding });
      const single = await parseWith(file, 0, config, true);
      const inline = await parseWith(file, 0, config);
      const parallel = await parseWith(file, 2, config);
      // fsync off: nothing to gain from direct writes, the page cache takes the facts.
      expect(parallel.directWrites).toBe(false);
      const direct = await parseWith(file, 2, config, false, 0, undefined, { directIo: true });
      if (onExt4) expect(direct.directWrites).toBe(true);
      expect(direct.facts).toBe(single.facts);
      expect(direct.keys).toEqual(single.keys);
      expect(inline.facts).toBe(single.facts);
      expect(inline.bad).toBe(single.bad);
      expect(inline.keys).toEqual(single.keys);
      expect(inline.byReason).toEqual(single.byReason);
      expect(single.totals.total).toBe(30_000);
      expect(single.byReason).toMatchObject({
        INVALID_INTEGER: expect.any(Number),
        COLUMN_COUNT_MISMATCH: expect.any(Number),
        MALFORMED_ROW: expect.any(Number),
      });
      expect(parallel.facts).toBe(single.facts);
      expect(parallel.bad).toBe(single.bad);
      expect(parallel.keys).toEqual(single.keys);
      expect(parallel.totals).toEqual(single.totals);
      expect(parallel.byCategory).toEqual(single.byCategory);
      expect(parallel.byReason).toEqual(single.byReason);
      expect(parallel.encoding).toBe(single.encoding);
      // row_number is the line a record starts on: a quoted line break and blank lines count.
      const rowOf = (sku: string) =>
        JSON.parse(single.facts.split("\n").find((l) => l.includes(`"sku":"${sku}"`))!).row_number;
      expect(rowOf("SKU-00000097")).toBe(100);
      expect(rowOf("SKU-00000098")).toBe(102);
    });
  }

  it("many batches on worker threads land in file order, and a bad byte late in the file still fails the read", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tm-csv-"));
    dirs.push(dir);
    const file = path.join(dir, "many.csv");
    // ~12 MB: a dozen 1 MB batches, so a worker often finishes a batch before its turn to write.
    const text = awkwardCsv(140_000, "\n");
    writeFileSync(file, text);
    const inline = await parseWith(file, 0);
    // The worker started ahead, as a run does on two cores while it hashes the input, is used
    // and the parse starts the other one.
    const threads = new ParseThreads(2, 2);
    threads.warmFor(cfg(), entry("many.csv", text.length));
    expect(threads.csv.idle).toBe(1);
    // fsync on: the workers write the facts with direct I/O (where the file system takes it).
    const parallel = await parseWith(file, 2, cfg(), false, 0, threads, { directIo: true });
    if (onExt4) expect(parallel.directWrites).toBe(true);
    // Both are handed back idle: they can read again, and run the key check next.
    expect(threads.csv.idle).toBe(2);
    const again = await parseWith(file, 2, cfg(), false, 0, threads, { directIo: false });
    expect(again.directWrites).toBe(false);
    expect(again.facts).toBe(inline.facts);
    expect(again.keys).toEqual(inline.keys);
    expect(threads.csv.idle).toBe(2);
    const pool = new KeyDiffPool(2, threads.csv);
    expect(threads.csv.idle).toBe(0);
    // The workers wrote each bucket's line table; the key check locates the lines from them,
    // the inline read wrote none and its check reads the text: same result.
    expect([parallel.lineTables, inline.lineTables]).toEqual([parallel.buckets, 0]);
    const checked = await dedupeAndDiff(parallel.keysDir, parallel.buckets, undefined, pool);
    await pool.close();
    await threads.close();
    const alone = await dedupeAndDiff(inline.keysDir, inline.buckets, undefined);
    expect(checked).toEqual(alone);
    expect(alone.duplicates.length).toBeGreaterThan(0);
    expect(inline.totals.total).toBe(140_000);
    expect(parallel.facts).toBe(inline.facts);
    expect(parallel.bad).toBe(inline.bad);
    expect(parallel.keys).toEqual(inline.keys);
    expect(parallel.totals).toEqual(inline.totals);
    const broken = Buffer.from(text, "utf8");
    broken[broken.length - 5000] = 0xff;
    writeFileSync(file, broken);
    await expect(parseWith(file, 2)).rejects.toMatchObject({ reason: "ENCODING_INVALID" });
  });

  it("an XLSX read on the worker thread equals the same XLSX read in-thread", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tm-xlsx-"));
    dirs.push(dir);
    const file = path.join(dir, "book.xlsx");
    const rnd = prng(9);
    await writeXlsxFile(file, [
      { name: "A", rows: Array.from({ length: 3000 }, (_, i) => stockRow(i, rnd)) },
      {
        name: "B",
        rows: Array.from({ length: 3000 }, (_, i) => ({
          ...stockRow(3000 + i, rnd),
          qty: i % 50 === 0 ? "x" : i,
        })),
      },
    ]);
    const config = cfg({ format: "xlsx", categories: { from: "sheet" } });
    const inThread = await parseWith(file, 0, config);
    // The reader's thread started ahead, as a run does while it hashes the input.
    const threads = new ParseThreads(1);
    threads.warmFor(config, entry("book.xlsx", 2 << 20));
    expect(threads.xlsx.idle).toBe(1);
    const worker = await parseWith(file, 1, config, false, 0, threads);
    expect(threads.xlsx.idle).toBe(0);
    await threads.close();
    expect(inThread.totals).toEqual({ total: 6000, good: 5940, bad: 60 });
    expect(worker.facts).toBe(inThread.facts);
    expect(worker.bad).toBe(inThread.bad);
    expect(worker.keys).toEqual(inThread.keys);
    expect(worker.byCategory).toEqual(inThread.byCategory);
  });
});
