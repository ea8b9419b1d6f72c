/**
 * Realistic supplier files for the demo, the tests and the benchmark: stock snapshots with
 * Cyrillic product names containing commas and quotes, as CSV (any encoding) or multi-sheet
 * XLSX. Deterministic for a given seed. Product code: no test-framework dependency.
 */
import { createWriteStream } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import ExcelJS from "exceljs";
import iconv from "iconv-lite";

/** One stock line. */
export interface StockRow {
  sku: string;
  name: string;
  qty: number | string;
  price: string;
  category?: string;
}

const WORDS = [
  "Молоток",
  "слесарный",
  "Отвёртка",
  "крестовая",
  "Ключ",
  "гаечный",
  "рожковый",
  "Набор бит",
  "Дрель",
  "ударная",
  "Пила",
  "ножовка",
  "Клей «Момент»",
  "монтажный",
];

/** A small deterministic PRNG (LCG), so generated files are reproducible. */
export function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
    return s;
  };
}

/** The i-th generated row of a snapshot (14 categories, names with commas). */
export function stockRow(i: number, rnd: () => number, categories = 14): StockRow {
  const w = () => WORDS[rnd() % WORDS.length]!;
  return {
    sku: `SKU-${String(i).padStart(8, "0")}`,
    name: `${w()} ${w()}, ${rnd() % 1000} мм`,
    qty: rnd() % 500,
    price: `${rnd() % 100000}.${String(rnd() % 100).padStart(2, "0")}`,
    category: `cat${String(rnd() % categories).padStart(2, "0")}`,
  };
}

/** `n` generated rows. */
export function stockRows(n: number, seed = 1): StockRow[] {
  const rnd = prng(seed);
  return Array.from({ length: n }, (_, i) => stockRow(i, rnd));
}

/** A CSV field, quoted when needed (RFC 4180). */
export function csvField(value: string | number, delimiter = ","): string {
  const s = String(value);
  return /["\r\n]/.test(s) || s.includes(delimiter) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** CSV text of rows with a header; `columns` picks and orders the fields. */
export function csvText(
  rows: readonly StockRow[],
  options: { delimiter?: string; columns?: Array<keyof StockRow>; header?: string[] } = {},
): string {
  const d = options.delimiter ?? ",";
  const cols = options.columns ?? ["sku", "name", "qty", "price", "category"];
  const header = (options.header ?? cols).map((c) => csvField(c, d)).join(d);
  const body = rows.map((r) => cols.map((c) => csvField(r[c] ?? "", d)).join(d));
  return `${[header, ...body].join("\n")}\n`;
}

/** Encodes text as a file body (e.g. windows-1251), optionally with a UTF-8 BOM. */
export function encodeText(text: string, encoding = "utf-8", bom = false): Buffer {
  const body = /^utf-?8$/i.test(encoding)
    ? Buffer.from(text, "utf8")
    : iconv.encode(text, encoding);
  return bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) : body;
}

/** Streams a large generated CSV (sku,name,qty,price,category) to a file; returns its size. */
export async function writeCsvFile(file: string, n: number, seed = 1): Promise<number> {
  await mkdir(path.dirname(file), { recursive: true });
  const out = createWriteStream(file);
  const rnd = prng(seed);
  let bytes = 0;
  let buf = "sku,name,qty,price,category\n";
  for (let i = 0; i < n; i++) {
    const r = stockRow(i, rnd);
    buf += `${r.sku},${csvField(r.name)},${r.qty},${r.price},${r.category}\n`;
    if (buf.length > 1 << 20) {
      bytes += Buffer.byteLength(buf);
      if (!out.write(buf)) await new Promise<void>((res) => out.once("drain", () => res()));
      buf = "";
    }
  }
  bytes += Buffer.byteLength(buf);
  await new Promise<void>((res, rej) => out.end(buf, () => res()).once("error", rej));
  return bytes;
}

/**
 * Writes an XLSX workbook, one sheet per entry (header sku/name/qty/price), with the
 * streaming writer so large workbooks stay small in memory.
 */
export async function writeXlsxFile(
  file: string,
  sheets: Array<{ name: string; rows: Iterable<StockRow>; hidden?: boolean }>,
): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: true });
  for (const sheet of sheets) {
    const ws = wb.addWorksheet(sheet.name, { state: sheet.hidden ? "hidden" : "visible" });
    ws.addRow(["sku", "name", "qty", "price"]).commit();
    for (const r of sheet.rows) {
      const price = Number(r.price);
      ws.addRow([
        r.sku,
        r.name,
        typeof r.qty === "number" ? r.qty : r.qty,
        Number.isNaN(price) ? r.price : price,
      ]).commit();
    }
    ws.commit();
  }
  await wb.commit();
}

/** Writes a supplier config file. */
export async function writeSupplierConfig(
  configDir: string,
  supplier: string,
  yaml: string,
): Promise<void> {
  await mkdir(configDir, { recursive: true });
  await writeFile(path.join(configDir, `${supplier}.yaml`), yaml);
}

/** The documented minimal supplier config (CSV, sku/qty/price/name). */
export const MINIMAL_CONFIG = `min_fact_count: 1
max_bad_ratio: 0.10
allow_empty_snapshot: false
format: csv            # csv | xlsx | auto
encoding: utf-8        # e.g. windows-1251
delimiter: ","
key: sku
file_stability_window: 30
columns:
  - { name: sku, type: string, required: true }
  - { name: qty, type: integer, required: true }
  - { name: price, type: decimal, minor_units: 2, as: price_minor, required: true }
  - { name: name, type: string, aliases: [title, наименование] }
`;
