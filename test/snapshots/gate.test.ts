import { appendFileSync, readFileSync, rmSync } from "node:fs";
import { expect, it } from "vitest";
import { stockRows, writeXlsxFile } from "../../src/pipelines/snapshots/fake/supplier-files.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import {
  CONFIG,
  csv,
  interceptStorage,
  type SnapHarness,
  snapshotHarness,
} from "./support/harness.ts";

const GOOD = csv("A1,Молоток,5,100.00", "A2,Ключ,3,12.50");

/** Publishes a first good state, so a FAIL can be seen leaving it in place. */
async function withPublishedState(t: SnapHarness): Promise<string> {
  t.config("acme");
  await t.put("acme", "first.csv", GOOD, 120);
  const { result } = await t.ingest("acme");
  expect(result.status).toBe("PASS");
  return result.run_id;
}

/** The consequences of a gate FAIL: broken/, manifest FAIL, nothing published. */
async function expectGateFail(t: SnapHarness, file: string, reason: string, previous: string) {
  const { report, result } = await t.ingest("acme");
  expect(result).toMatchObject({ status: "FAIL", reason_code: reason });
  expect(report.status).toBe("failed");
  expect(t.exists(`inbox/acme/${file}`)).toBe(false);
  if (reason !== "FILE_MISSING") expect(t.exists(`quarantine/acme/broken/${file}`)).toBe(true);
  const manifest = t.json(`runs/${result.run_id}/manifest.json`);
  expect(manifest).toMatchObject({
    status: "FAIL",
    fail_reason: reason,
    run_id: result.run_id,
    input_filename: file,
  });
  expect((await t.storage.readCurrent("acme"))?.run_id).toBe(previous);
  expect(t.exists(`state_store/acme/${result.run_id}`)).toBe(false);
  return result;
}

describeEachDialect("snapshots gate", (h) => {
  it("size 0 → FILE_EMPTY", async () => {
    const t = await snapshotHarness(h);
    const prev = await withPublishedState(t);
    await t.put("acme", "empty.csv", "");
    await expectGateFail(t, "empty.csv", "FILE_EMPTY", prev);
  });

  it("a file that vanishes after selection → FILE_MISSING", async () => {
    const t = await snapshotHarness(h);
    const prev = await withPublishedState(t);
    await t.put("acme", "gone.csv", GOOD.replace("A1", "B1"));
    const storage = interceptStorage(t.storage, {
      stat: async (key: string) => {
        if (key === "inbox/acme/gone.csv") rmSync(t.file(key), { force: true });
        return t.storage.stat(key);
      },
    });
    const result = await t.ingestWith(storage, "acme");
    expect(result).toMatchObject({ status: "FAIL", reason_code: "FILE_MISSING" });
    expect(t.json(`runs/${result.run_id}/manifest.json`)).toMatchObject({
      status: "FAIL",
      fail_reason: "FILE_MISSING",
    });
    expect((await t.storage.readCurrent("acme"))?.run_id).toBe(prev);
  });

  it("not readable to the end → FILE_UNREADABLE (unterminated quote; corrupt XLSX)", async () => {
    const t = await snapshotHarness(h);
    const prev = await withPublishedState(t);
    await t.put("acme", "open-quote.csv", 'sku,name,qty,price\nA1,"never closed,5,1.00\n');
    await expectGateFail(t, "open-quote.csv", "FILE_UNREADABLE", prev);
    t.config("acme", CONFIG.replace("format: csv", "format: auto"));
    await t.put(
      "acme",
      "corrupt.xlsx",
      Buffer.concat([Buffer.from("PK\x03\x04"), Buffer.alloc(200, 7)]),
    );
    await expectGateFail(t, "corrupt.xlsx", "FILE_UNREADABLE", prev);
    // Cut inside a worksheet and between entries: such reads used to wait forever.
    const book = t.file("book.xlsx");
    await writeXlsxFile(book, [{ name: "S", rows: stockRows(60) }]);
    for (const cut of [1000, 3000, 6000]) {
      await t.put("acme", `cut-${cut}.xlsx`, readFileSync(book).subarray(0, cut));
      const r = await expectGateFail(t, `cut-${cut}.xlsx`, "FILE_UNREADABLE", prev);
      expect(r.detail).toMatch(/not a readable workbook/);
    }
  });

  it("bytes invalid in the configured encoding → ENCODING_INVALID", async () => {
    const t = await snapshotHarness(h);
    const prev = await withPublishedState(t);
    // "Молоток" in windows-1251, read as UTF-8.
    await t.put(
      "acme",
      "cp1251.csv",
      Buffer.concat([
        Buffer.from("sku,name,qty,price\nA1,"),
        Buffer.from([0xcc, 0xee, 0xeb]),
        Buffer.from(",5,1.00\n"),
      ]),
    );
    const r = await expectGateFail(t, "cp1251.csv", "ENCODING_INVALID", prev);
    // Where: the file, the line and the byte offset of the first invalid byte.
    expect(r.detail).toBe(
      "inbox/acme/cp1251.csv: the file is not valid utf-8 text at line 2 (byte offset 22) (encoding: utf-8)",
    );
  });

  it("content that is not the configured format → FORMAT_UNRECOGNIZED", async () => {
    const t = await snapshotHarness(h);
    const prev = await withPublishedState(t);
    await t.put("acme", "binary.csv", Buffer.from([0x00, 0x01, 0x02, 0x00, 0x41]));
    await expectGateFail(t, "binary.csv", "FORMAT_UNRECOGNIZED", prev);
    await writeXlsxFile(t.file("inbox/acme/book.csv"), [{ name: "S", rows: [] }]);
    await t.put("acme", "book.csv", readFileSync(t.file("inbox/acme/book.csv")));
    await expectGateFail(t, "book.csv", "FORMAT_UNRECOGNIZED", prev);
    await t.put(
      "acme",
      "legacy.xls",
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
    );
    await expectGateFail(t, "legacy.xls", "FORMAT_UNRECOGNIZED", prev);
  });

  it("required columns absent → REQUIRED_COLUMNS_MISSING, with a delimiter hint", async () => {
    const t = await snapshotHarness(h);
    const prev = await withPublishedState(t);
    await t.put("acme", "no-qty.csv", "sku,name,price\nA1,x,1.00\n");
    const r = await expectGateFail(t, "no-qty.csv", "REQUIRED_COLUMNS_MISSING", prev);
    expect(r.detail).toMatch(/missing qty/);
    await t.put("acme", "semicolons.csv", "sku;name;qty;price\nA1;x;1;1.00\n");
    const s = await expectGateFail(t, "semicolons.csv", "REQUIRED_COLUMNS_MISSING", prev);
    expect(s.detail).toMatch(/delimiter is ",", the header contains ";"/);
  });

  it("a header not matching the structure → HEADER_MISMATCH (twice a column, blank file, unexpected column)", async () => {
    const t = await snapshotHarness(h);
    const prev = await withPublishedState(t);
    await t.put("acme", "twice.csv", "sku,name,qty,price,qty\nA1,x,1,1.00,2\n");
    await expectGateFail(t, "twice.csv", "HEADER_MISMATCH", prev);
    await t.put("acme", "blank.csv", "\n\n\n");
    await expectGateFail(t, "blank.csv", "HEADER_MISMATCH", prev);
    t.config("acme", `${CONFIG}extra_columns: fail\n`);
    await t.put("acme", "extra.csv", "sku,name,qty,price,colour\nA1,x,1,1.00,red\n");
    const r = await expectGateFail(t, "extra.csv", "HEADER_MISMATCH", prev);
    expect(r.detail).toMatch(/unexpected column\(s\) colour/);
  });

  it("a file rewritten between selection and parsing → FILE_CHANGED_DURING_READ", async () => {
    const t = await snapshotHarness(h);
    const prev = await withPublishedState(t);
    await t.put("acme", "moving.csv", GOOD.replace("A1", "C1"));
    const storage = interceptStorage(t.storage, {
      stat: async (key: string) => {
        if (key === "inbox/acme/moving.csv") appendFileSync(t.file(key), "C9,late,1,1.00\n");
        return t.storage.stat(key);
      },
    });
    const result = await t.ingestWith(storage, "acme");
    expect(result).toMatchObject({ status: "FAIL", reason_code: "FILE_CHANGED_DURING_READ" });
    expect(t.exists("quarantine/acme/broken/moving.csv")).toBe(true);
    expect((await t.storage.readCurrent("acme"))?.run_id).toBe(prev);
  });

  it("workbook sheets: a configured sheet missing → SHEET_MISSING; an unknown one → SHEET_UNEXPECTED", async () => {
    const t = await snapshotHarness(h);
    t.config(
      "acme",
      CONFIG.replace("format: csv", "format: xlsx").concat(
        "categories: { from: sheet, sheets: { Tools: tools, Glue: glue } }\n",
      ),
    );
    const rows = [{ sku: "A1", name: "x", qty: 1, price: "1.00" }];
    await writeXlsxFile(t.file("inbox/acme/one.xlsx"), [{ name: "Tools", rows }]);
    await t.put("acme", "one.xlsx", readFileSync(t.file("inbox/acme/one.xlsx")));
    let { result } = await t.ingest("acme");
    expect(result).toMatchObject({ status: "FAIL", reason_code: "SHEET_MISSING" });
    await writeXlsxFile(t.file("inbox/acme/three.xlsx"), [
      { name: "Tools", rows },
      { name: "Glue", rows },
      { name: "Misc", rows },
    ]);
    await t.put("acme", "three.xlsx", readFileSync(t.file("inbox/acme/three.xlsx")));
    ({ result } = await t.ingest("acme"));
    expect(result).toMatchObject({ status: "FAIL", reason_code: "SHEET_UNEXPECTED" });
    expect(await t.storage.readCurrent("acme")).toBeUndefined();
  });
});
