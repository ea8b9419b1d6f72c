import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { contentHash } from "../../src/engine/hashing/index.ts";
import { encodeText, writeXlsxFile } from "../../src/pipelines/snapshots/fake/supplier-files.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { CONFIG, csv, snapshotHarness } from "./support/harness.ts";

const TEXT = csv('A1,"Молоток слесарный, 500 г",5,349.90', "A2,Отвёртка «Зубр»,3,120.00");

describeEachDialect("snapshots formats", (h) => {
  it("a windows-1251 file gives the same facts and row_ids as its UTF-8 twin", async () => {
    const t = await snapshotHarness(h);
    t.config("utf", CONFIG);
    t.config("win", CONFIG.replace("encoding: utf-8", "encoding: windows-1251"));
    await t.put("utf", "s.csv", encodeText(TEXT, "utf-8"));
    await t.put("win", "s.csv", encodeText(TEXT, "windows-1251"));
    expect((await t.ingest("utf")).result.status).toBe("PASS");
    const win = (await t.ingest("win")).result;
    expect(win).toMatchObject({ status: "PASS", good_rows: 2 });
    const strip = (f: Record<string, unknown>) => ({ row_id: f.row_id, payload: f.payload });
    expect((await t.stateFacts("win")).map(strip)).toEqual((await t.stateFacts("utf")).map(strip));
    expect((await t.stateFacts("win"))[0]).toMatchObject({
      payload: { sku: "A1", name: "Молоток слесарный, 500 г", qty: 5, price_minor: 34990 },
      row_id: contentHash({
        name: "Молоток слесарный, 500 г",
        price_minor: 34990,
        qty: 5,
        sku: "A1",
      }),
    });
    expect(t.json(`runs/${win.run_id}/stats.json`)).toMatchObject({
      input: { encoding: "windows-1251" },
    });
  });

  it("a UTF-8 BOM is stripped (also when the config says windows-1251); ; and tab delimiters work", async () => {
    const t = await snapshotHarness(h);
    t.config("bom", CONFIG.replace("encoding: utf-8", "encoding: windows-1251"));
    await t.put("bom", "s.csv", encodeText(TEXT, "utf-8", true));
    expect((await t.ingest("bom")).result).toMatchObject({ status: "PASS", good_rows: 2 });
    expect((await t.stateFacts("bom"))[1]).toMatchObject({ payload: { name: "Отвёртка «Зубр»" } });
    t.config("semi", CONFIG.replace('delimiter: ","', 'delimiter: ";"'));
    await t.put("semi", "s.csv", "sku;name;qty;price\nA1;a, b;1;2,50\n");
    expect((await t.ingest("semi")).result).toMatchObject({ status: "PASS", good_rows: 1 });
    expect((await t.stateFacts("semi"))[0]).toMatchObject({
      payload: { name: "a, b", price_minor: 250 },
    });
    t.config("tab", CONFIG.replace('delimiter: ","', 'delimiter: "\\t"'));
    await t.put("tab", "s.tsv", "sku\tname\tqty\tprice\nA1\tx\t1\t2\n");
    expect((await t.ingest("tab")).result).toMatchObject({ status: "PASS", good_rows: 1 });
  });

  it("UTF-16 (with BOM) is read on the text path", async () => {
    const t = await snapshotHarness(h);
    t.config("u16", CONFIG.replace("encoding: utf-8", "encoding: utf-16le"));
    await t.put(
      "u16",
      "s.csv",
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEXT, "utf16le")]),
    );
    const { result } = await t.ingest("u16");
    expect(result).toMatchObject({ status: "PASS", good_rows: 2 });
    expect((await t.stateFacts("u16"))[0]).toMatchObject({
      payload: { name: "Молоток слесарный, 500 г" },
    });
  });

  it("a multi-sheet XLSX: one category_key per sheet, hidden sheets skipped, Excel row numbers", async () => {
    const t = await snapshotHarness(h);
    t.config(
      "book",
      CONFIG.replace("format: csv", "format: auto")
        .replace("max_bad_ratio: 0.10", "max_bad_ratio: 0.5")
        .concat("categories: { from: sheet, sheets: { Инструмент: tools, Крепёж: fasteners } }\n"),
    );
    await writeXlsxFile(t.file("tmp/book.xlsx"), [
      {
        name: "Инструмент",
        rows: [
          { sku: "T1", name: "Молоток", qty: 5, price: "349.9" },
          { sku: "T2", name: "Ключ", qty: "x", price: "1" },
        ],
      },
      {
        name: "Крепёж",
        rows: [
          { sku: "F1", name: "Винт, М4", qty: 100, price: "0.35" },
          { sku: "T1", name: "тот же SKU, другой лист", qty: 1, price: "1" },
        ],
      },
      { name: "lookup", rows: [{ sku: "L", name: "l", qty: 1, price: "1" }], hidden: true },
    ]);
    await t.put("book", "stock.xlsx", readFileSync(t.file("tmp/book.xlsx")));
    const { result } = await t.ingest("book");
    expect(result).toMatchObject({ status: "PASS", good_rows: 3, bad_rows: 1 });
    const facts = await t.stateFacts("book");
    expect(
      facts.map((f) => [f.category_key, (f.payload as { sku: string }).sku, f.row_number]),
    ).toEqual([
      ["tools", "T1", 2],
      ["fasteners", "F1", 2],
      ["fasteners", "T1", 3],
    ]);
    expect(facts[0]!.payload).toEqual({ sku: "T1", name: "Молоток", qty: 5, price_minor: 34990 });
    const stats = t.json(`runs/${result.run_id}/stats.json`);
    expect(stats.by_category).toEqual({
      fasteners: { total_rows: 2, good_rows: 2, bad_rows: 0, bad_ratio: 0 },
      tools: { total_rows: 2, good_rows: 1, bad_rows: 1, bad_ratio: 0.5 },
    });
    expect(stats.input).toMatchObject({
      format: "xlsx",
      skipped_sheets: [{ name: "lookup", why: "hidden" }],
    });
    const bad = readFileSync(t.file(`runs/${result.run_id}/bad.ndjson`), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(bad).toEqual([
      expect.objectContaining({
        category_key: "tools",
        row_number: 3,
        reason_code: "INVALID_INTEGER",
      }),
    ]);
  });
});
