import { describe, expect, it } from "vitest";
import {
  forEachRow,
  type RowBatch,
  RowBatchBuilder,
} from "../../../src/pipelines/snapshots/stages/parse/extract/xlsx-row-batch.ts";
import { planSheet } from "../../../src/pipelines/snapshots/stages/parse/extract/xlsx-sheets.ts";
import {
  CellErrorValue,
  type CellValue,
} from "../../../src/pipelines/snapshots/stages/quality/emit/value-parsers.ts";

/** What the emitting thread gets after a batch is cloned across threads. */
function roundTrip(rows: Array<{ values: unknown[]; n: number }>) {
  const b = new RowBatchBuilder();
  for (const r of rows) b.add(r.values, r.n);
  const { batch, transfer } = b.take();
  const cloned = structuredClone(batch, { transfer }) as RowBatch;
  const out: Array<{ cells: CellValue[]; n: number }> = [];
  forEachRow(cloned, (cells, n) => out.push({ cells, n }));
  return out;
}

describe("XLSX row batches (worker → emitting thread)", () => {
  it("carry every cell kind unchanged, in order, with row numbers", () => {
    const when = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6));
    const rows = [
      // exceljs rows are 1-based: index 0 is a hole.
      { values: [undefined, "SKU-1", 42, -0, 1.5e300, true, false, when], n: 2 },
      {
        values: [
          undefined,
          { error: "#N/A" },
          { formula: "A1", result: 7 },
          { richText: [{ text: "a" }, { text: "b" }] },
        ],
        n: 5,
      },
      {
        values: [
          undefined,
          "",
          "  x  ",
          "\uD800 lone",
          "Категория ✓",
          null,
          undefined,
          new Date(Number.NaN),
        ],
        n: 9,
      },
    ];
    const out = roundTrip(rows);
    expect(out.map((r) => r.n)).toEqual([2, 5, 9]);
    expect(out[0]!.cells).toEqual(["SKU-1", 42, -0, 1.5e300, true, false, when]);
    expect(Object.is(out[0]!.cells[2], -0)).toBe(true);
    expect(out[1]!.cells[0]).toBeInstanceOf(CellErrorValue);
    expect((out[1]!.cells[0] as CellErrorValue).code).toBe("#N/A");
    expect(out[1]!.cells.slice(1)).toEqual([7, "ab"]);
    const third = out[2]!.cells;
    expect(third.slice(0, 6)).toEqual(["", "  x  ", "\uD800 lone", "Категория ✓", null, null]);
    expect(third[6]).toBeInstanceOf(Date);
    expect(Number.isNaN((third[6] as Date).getTime())).toBe(true);
  });

  it("leave out blank rows (empty, whitespace-only, null cells) but keep a lone error cell", () => {
    const out = roundTrip([
      { values: [], n: 1 },
      { values: [undefined, " ", null, ""], n: 2 },
      { values: [undefined, "h1", "h2"], n: 3 },
      { values: [undefined, null, { error: "#REF!" }], n: 4 },
      { values: [undefined, "\t"], n: 5 },
    ]);
    expect(out.map((r) => r.n)).toEqual([3, 4]);
    expect(out[0]!.cells).toEqual(["h1", "h2"]);
    expect(out[1]!.cells[0]).toBeNull();
    expect((out[1]!.cells[1] as CellErrorValue).code).toBe("#REF!");
  });

  it("grow past their initial buffers and start empty after take()", () => {
    const b = new RowBatchBuilder();
    const wide = Array.from({ length: 20_001 }, (_, i) => (i === 0 ? undefined : `c${i}`));
    for (let n = 1; n <= 3; n++) b.add(wide, n);
    const { batch } = b.take();
    expect(batch.widths).toEqual(new Int32Array([20_000, 20_000, 20_000]));
    expect(b.rows).toBe(0);
    const out: CellValue[][] = [];
    forEachRow(batch, (cells) => out.push(cells));
    expect(out[2]![19_999]).toBe("c20000");
    expect(b.take().batch.tags.length).toBe(0);
  });
});

describe("planSheet (decided alike on both threads)", () => {
  const bySheet = {
    from: "sheet" as const,
    sheets: { A: "cat-a" },
    unknown_sheets: "fail" as const,
  };
  it("maps, skips or refuses sheets as the gate does", () => {
    expect(planSheet(bySheet, "A", undefined, false)).toEqual({ category: "cat-a" });
    expect(planSheet(bySheet, "B", undefined, false)).toEqual({ unexpected: true });
    expect(planSheet({ ...bySheet, unknown_sheets: "ignore" }, "B", "visible", true)).toEqual({
      skip: "not configured",
    });
    expect(planSheet(bySheet, "A", "hidden", false)).toEqual({ skip: "hidden" });
    expect(planSheet({ from: "sheet", unknown_sheets: "fail" }, "Z", undefined, true)).toEqual({
      category: "Z",
    });
    expect(planSheet(undefined, "S1", undefined, false)).toEqual({});
    expect(planSheet(undefined, "S2", undefined, true)).toEqual({ skip: "not first" });
  });
});
