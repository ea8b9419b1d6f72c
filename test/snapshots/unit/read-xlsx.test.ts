import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import {
  prng,
  stockRow,
  writeXlsxFile,
} from "../../../src/pipelines/snapshots/fake/supplier-files.ts";
import { supplierConfigSchema } from "../../../src/pipelines/snapshots/stages/intake/config/supplier-config.ts";
import {
  cellValue,
  readXlsx,
} from "../../../src/pipelines/snapshots/stages/parse/extract/read-xlsx.ts";
import { SourceReadError } from "../../../src/pipelines/snapshots/stages/parse/input/byte-source.ts";
import { parseInput } from "../../../src/pipelines/snapshots/stages/parse/parse-input.ts";
import { FsSnapshotStorage } from "../../../src/pipelines/snapshots/stages/publish/storage/fs-storage.ts";
import type { RowEmitter } from "../../../src/pipelines/snapshots/stages/quality/emit/row-emitter.ts";
import {
  compileSchema,
  GateFailure,
} from "../../../src/pipelines/snapshots/stages/quality/emit/schema.ts";

const outer = tmpdir();
const root = mkdtempSync(path.join(outer, "tm-read-xlsx-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cfg = (extra: Record<string, unknown> = {}) =>
  supplierConfigSchema.parse({
    min_fact_count: 1,
    max_bad_ratio: 1,
    allow_empty_snapshot: false,
    key: "sku",
    format: "xlsx",
    categories: { from: "sheet" },
    columns: [
      { name: "sku", required: true },
      { name: "qty", type: "integer", required: true },
      { name: "price", type: "decimal", as: "price_minor" },
      { name: "name" },
    ],
    ...extra,
  });

/**
 * exceljs's streaming writer stores the worksheets before xl/sharedStrings.xml, so the reader
 * has to set them aside until the shared strings are known: the case both bugs were in. Small
 * sheets (like the demo's) let the ZIP parser finish while the reader still spools, the timing
 * in which exceljs's own loop dropped the entries after the current one.
 */
const book = path.join(root, "book.xlsx");
const SHEETS = ["Инструмент", "Крепёж", "Химия"];
await writeXlsxFile(
  book,
  SHEETS.map((name, s) => {
    const rnd = prng(s + 1);
    return { name, rows: Array.from({ length: 20 }, (_, i) => stockRow(s * 20 + i, rnd)) };
  }),
);

let runs = 0;

/** Parses the workbook in-thread (workers 0) or on the XLSX worker thread (workers 1). */
async function parse(workers: number, config = cfg(), bytes = readFileSync(book)) {
  const dataDir = path.join(root, `data-${++runs}`);
  mkdirSync(path.join(dataDir, "inbox", "acme"), { recursive: true });
  writeFileSync(path.join(dataDir, "inbox", "acme", "stock.xlsx"), bytes);
  const storage = new FsSnapshotStorage(dataDir, false);
  const runId = `acme_20260101T000000Z_${String(runs).padStart(6, "0")}`;
  const workDir = await storage.runWorkDir(runId);
  const parsed = await parseInput({
    storage,
    key: "inbox/acme/stock.xlsx",
    sha256: createHash("sha256").update(bytes).digest("hex"),
    cfg: config,
    workDir,
    runId,
    supplier: "acme",
    workers,
    parallelMinBytes: 0,
  });
  const facts = readFileSync(path.join(workDir, "facts.ndjson"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { category_key: string; payload: { sku: string; name: string } });
  return { parsed, facts };
}

/** Runs `body` with TMPDIR pointed at a fresh folder `depth` levels below the outer one. */
async function withTmpdir<T>(depth: number, body: (dir: string) => Promise<T>): Promise<T> {
  const dir = path.join(mkdtempSync(path.join(root, "tmp-")), ...Array(depth).fill("d"));
  mkdirSync(dir, { recursive: true });
  // tsx's compile cache lives in TMPDIR: share the outer one so worker threads start warm.
  const cache = `tsx-${process.geteuid?.() ?? 0}`;
  if (existsSync(path.join(outer, cache)))
    symlinkSync(path.join(outer, cache), path.join(dir, cache));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    return await body(dir);
  } finally {
    process.env.TMPDIR = previous;
  }
}

/** What a read left in the temp folder (the tsx cache link aside). */
const leftovers = (dir: string) => readdirSync(dir).filter((n) => !n.startsWith("tsx-"));

const MODES = [
  ["in-thread", 0],
  ["on the worker thread", 1],
] as const;

describe("XLSX read", () => {
  for (const [label, workers] of MODES) {
    it(`resolves shared strings and sheet names with TMPDIR two folders deep (${label})`, async () => {
      await withTmpdir(2, async () => {
        for (let i = 0; i < 3; i++) {
          const { parsed, facts } = await parse(workers);
          expect(parsed.sheets?.sheets).toEqual(
            SHEETS.map((name) => ({ name, category_key: name, rows: 20 })),
          );
          expect(parsed.emitter.totals).toEqual({ total: 60, good: 60, bad: 0 });
          expect(facts[0]).toMatchObject({
            category_key: "Инструмент",
            payload: { sku: "SKU-00000000", name: expect.stringMatching(/ мм$/) },
          });
        }
      });
    });

    it(`leaves no temp file behind after a complete read (${label})`, async () => {
      await withTmpdir(0, async (dir) => {
        const { parsed } = await parse(workers);
        expect(parsed.emitter.totals.total).toBe(60);
        expect(leftovers(dir)).toEqual([]);
      });
    });

    it(`leaves no temp file behind after a read stopped early by a gate failure (${label})`, async () => {
      await withTmpdir(0, async (dir) => {
        const config = cfg({
          columns: [...cfg().columns, { name: "brand", required: true }],
        });
        const err = await parse(workers, config).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(GateFailure);
        expect(err).toMatchObject({ reason: "REQUIRED_COLUMNS_MISSING" });
        expect((err as GateFailure).detail).toContain('sheet "Инструмент"');
        expect(leftovers(dir)).toEqual([]);
      });
    });
  }

  for (const [label, workers] of MODES) {
    it(`a truncated workbook fails FILE_UNREADABLE at every cut, never hangs (${label})`, async () => {
      const bytes = readFileSync(book);
      // Cuts inside the first entry, inside a spooled worksheet, between entries (the next
      // entry's header already parsed), in the shared strings, in the central directory and
      // one byte short: before the fix some cuts left the read waiting forever.
      const cuts = [30, 1000, 2000, 3000, 4000, 6000, bytes.length - 200, bytes.length - 1];
      for (const cut of cuts) {
        const outcome = await Promise.race([
          parse(workers, cfg(), bytes.subarray(0, cut)).then(
            () => "parsed",
            (e: unknown) => e,
          ),
          new Promise((resolve) => setTimeout(() => resolve("still reading after 10 s"), 10_000)),
        ]);
        expect(outcome, `cut at ${cut} of ${bytes.length} bytes`).toBeInstanceOf(GateFailure);
        expect(outcome).toMatchObject({ reason: "FILE_UNREADABLE" });
      }
    }, 120_000);
  }

  it("an unresolved shared-string cell is an error, not the text [object Object]", () => {
    expect(cellValue({ richText: [{ text: "a" }, { text: "b" }] })).toBe("ab");
    expect(() => cellValue({ sharedString: 7 })).toThrow("shared string 7 not found");
  });

  it("an input that fails mid-read fails the read with its error, spool folder removed", async () => {
    await withTmpdir(0, async (dir) => {
      const bytes = readFileSync(book);
      const input = Readable.from(
        (async function* () {
          yield bytes.subarray(0, 300);
          throw new SourceReadError(new Error("connection reset"));
        })(),
      );
      const config = cfg();
      // Nothing reaches the emitter: the first 300 bytes hold no worksheet row.
      const emitter = {} as RowEmitter;
      const read = readXlsx(input, {
        categories: config.categories,
        schema: compileSchema(config),
        emitter,
      });
      await expect(read).rejects.toThrow(SourceReadError);
      expect(leftovers(dir)).toEqual([]);
    });
  });
});
