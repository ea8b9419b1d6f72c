import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { csvField } from "../../../src/pipelines/snapshots/fake/supplier-files.ts";
import { supplierConfigSchema } from "../../../src/pipelines/snapshots/stages/intake/config/supplier-config.ts";
import { CsvBatchProcessor } from "../../../src/pipelines/snapshots/stages/parse/byte-csv/csv-batch.ts";
import { fnv1a } from "../../../src/pipelines/snapshots/stages/publish/artifacts/key-index.ts";
import { indexLines } from "../../../src/pipelines/snapshots/stages/publish/artifacts/key-lines.ts";
import {
  linesFromTable,
  tableOf,
} from "../../../src/pipelines/snapshots/stages/publish/artifacts/line-table.ts";
import { fnv1aUtf8 } from "../../../src/pipelines/snapshots/stages/publish/artifacts/utf8-bytes.ts";
import { RowEmitter } from "../../../src/pipelines/snapshots/stages/quality/emit/row-emitter.ts";
import {
  compileSchema,
  mapHeader,
} from "../../../src/pipelines/snapshots/stages/quality/emit/schema.ts";
import { batchSetup, configWith, textPath as referenceOf } from "./batch-setup.ts";

const cfg = configWith([
  { name: "sku", required: true },
  { name: "qty", type: "integer" },
  { name: "price", type: "decimal", minor_units: 2, as: "price_minor" },
  { name: "name" },
  { name: "d", type: "date" },
]);
const setup = batchSetup(cfg, ["sku", "qty", "price", "name", "d", "cat"]);

/** One category for the whole file: the category column is not in the schema, and ignored. */
const singleCfg = supplierConfigSchema.parse({ ...cfg, categories: undefined });
const singleSchema = compileSchema(singleCfg);
const singleSetup = {
  ...setup,
  schema: singleSchema,
  header: mapHeader(singleSchema, ["sku", "qty", "price", "name", "d", "cat"]),
  multiCategory: false,
};

/** Every bucket's line table equals what indexLines finds reading the bucket's text. */
function expectTablesLocateLines(out: { keys: Uint8Array[]; tables: Uint8Array[] }): void {
  out.keys.forEach((bytes, b) => {
    const text = Buffer.from(bytes);
    const read = indexLines(text);
    const fromTable = linesFromTable(text, out.tables[b]!);
    const used = (l: NonNullable<typeof fromTable>) =>
      [l.start, l.idStart, l.idEnd, l.hash].map((a) => Array.from(a.subarray(0, l.count)));
    expect(fromTable && [fromTable.count, used(fromTable)]).toEqual([read.count, used(read)]);
  });
}

/** The text path: CsvRecordParser + RowEmitter, the reference the byte path must equal. */
const textPath = (body: string) => referenceOf(setup, body);

const char = fc.constantFrom(
  "a",
  "Ж",
  " ",
  "\u00a0",
  "\u2003",
  "\t",
  '"',
  "\\",
  "\u0001",
  "\n",
  ",",
  "5",
  ".",
  "-",
  "😀",
  "\u2028",
  // Every lead byte of a space trim removes: U+1680 (E1), U+3000 (E3), U+FEFF (EF) besides
  // U+00A0 (C2) and U+2003, U+2028 (E2) above.
  "\u1680",
  "\u3000",
  "\ufeff",
  "\r",
);
const text = fc.array(char, { maxLength: 6 }).map((a) => a.join(""));
const number = fc.oneof(
  fc.integer({ min: -999, max: 99999 }).map(String),
  fc.constantFrom("1.5", "2,25", "1 000", "x", "", "0.125", "+7"),
);
const row = fc.tuple(
  fc.oneof(text, fc.constantFrom("K1", "K2", "Ключ")),
  number,
  number,
  text,
  fc.constantFrom("2026-02-13", "13.02.2026", "", "no"),
  fc.constantFrom("c1", "кат", "", " c1 "),
);

describe("byte-level emitter", () => {
  it("writes exactly what the text path writes, for any rows (property)", () => {
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 12 }),
        fc.constantFrom("\n", "\r\n"),
        (rows, eol) => {
          const body = rows.map((r) => r.map((v) => csvField(v)).join(",")).join(eol) + eol;
          const expected = textPath(body);
          const actual = new CsvBatchProcessor(setup).process(Buffer.from(body, "utf8"), 2, 0);
          const text = (b: Uint8Array) => Buffer.from(b).toString();
          expect(text(actual.facts)).toBe(expected.facts);
          expect(text(actual.bad)).toBe(expected.bad);
          expect(actual.keys.map(text)).toEqual(expected.keys);
          expect(actual.counts).toEqual(expected.counts);
          expectTablesLocateLines(actual);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("each bucket's line table locates and hashes its lines as reading the text does, with one category or many (property)", () => {
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 12 }), fc.boolean(), (rows, single) => {
        const body = `${rows.map((r) => r.map((v) => csvField(v)).join(",")).join("\n")}\n`;
        const processor = new CsvBatchProcessor(single ? singleSetup : setup);
        expectTablesLocateLines(processor.process(Buffer.from(body, "utf8"), 2, 0));
      }),
      { numRuns: 300 },
    );
    // The single-category lines have an empty category before the key.
    const single = new CsvBatchProcessor(singleSetup).process(
      Buffer.from("K1,5,1.50,a,,c1\n"),
      2,
      0,
    );
    expect(Buffer.concat(single.keys).toString()).toMatch(/^[0-9a-f]{16}\t2\t\t"K1"\n$/);
    expectTablesLocateLines(single);
    // A table that does not fit its bucket is refused (the check then reads the text).
    const out = new CsvBatchProcessor(setup).process(Buffer.from("K1,5,1.50,a,,c1\n"), 2, 0);
    const b = out.keys.findIndex((k) => k.length > 0);
    const keys = Buffer.from(out.keys[b]!);
    expect(linesFromTable(keys, out.tables[b]!)).toBeDefined();
    expect(linesFromTable(keys.subarray(1), out.tables[b]!)).toBeUndefined();
    expect(linesFromTable(keys, out.tables[b]!.subarray(1))).toBeUndefined();
    expect(linesFromTable(Buffer.concat([keys, keys]), out.tables[b]!)).toBeUndefined();
    // A table read into memory that does not start on a 4-byte boundary gives the same lines.
    const raw = new Uint8Array(out.tables[b]!.length + 1);
    raw.set(out.tables[b]!, 1);
    expect(linesFromTable(keys, raw.subarray(1))).toEqual(linesFromTable(keys, out.tables[b]!));
    // A line longer than an entry holds (16 MiB) leaves its table unusable, not wrong.
    const long = Buffer.from(`0123456789abcdef\t2\t"c"\t"${"x".repeat(1 << 24)}"\n`);
    const read = indexLines(long);
    expect(read.count).toBe(1);
    expect(
      linesFromTable(
        long,
        tableOf(read, () => true),
      ),
    ).toBeUndefined();
  });

  it("clean rows take the fast path; only odd ones are re-read as text", () => {
    const seen: string[] = [];
    const original = RowEmitter.prototype.row;
    const spy = vi.spyOn(RowEmitter.prototype, "row").mockImplementation(function (
      this: RowEmitter,
      cells,
      line,
      m,
    ) {
      seen.push(String(cells[0]));
      return original.call(this, cells, line, m);
    });
    try {
      const body =
        'K1,5,1.50,"Молоток, 500 г",2026-02-13,c1\nK2,x,1,a,,c1\nK3,1,1,\u00a0b,,c1\nK4,1,1,b,,c1\n';
      const out = new CsvBatchProcessor(setup).process(Buffer.from(body, "utf8"), 2, 0);
      expect(out.counts.totals).toEqual({ total: 4, good: 3, bad: 1 });
      expect(seen).toEqual(["K2", "K3"]);
    } finally {
      spy.mockRestore();
    }
  });

  it("FNV over UTF-8 bytes equals FNV over the decoded string (key buckets agree across paths)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 20 }), fc.nat(), (s, seed) => {
        const bytes = Buffer.from(s, "utf8");
        expect(fnv1aUtf8(bytes, 0, bytes.length, seed >>> 0)).toBe(fnv1a(s, seed >>> 0));
      }),
    );
  });
});
