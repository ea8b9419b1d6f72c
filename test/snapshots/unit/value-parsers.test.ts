import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CellErrorValue,
  parseDate,
  parseDecimal,
  parseInteger,
  parseString,
} from "../../../src/pipelines/snapshots/stages/quality/emit/value-parsers.ts";

const reason = (v: unknown) => (v as { reason?: string } | null)?.reason;

describe("value parsers", () => {
  it("integers: plain, signed, grouped by spaces, .00; junk and fractions refused", () => {
    expect(parseInteger("56")).toBe(56);
    expect(parseInteger("-3")).toBe(-3);
    expect(parseInteger("1 000")).toBe(1000);
    expect(parseInteger("1\u00a0234")).toBe(1234);
    expect(parseInteger("7.00")).toBe(7);
    expect(parseInteger(" 8 ")).toBe(8);
    expect(parseInteger("")).toBeNull();
    expect(reason(parseInteger("5.5"))).toBe("INVALID_INTEGER");
    expect(reason(parseInteger("много"))).toBe("INVALID_INTEGER");
    expect(reason(parseInteger("99999999999999999"))).toBe("NUMBER_OUT_OF_RANGE");
    expect(parseInteger(12)).toBe(12);
    expect(reason(parseInteger(1.5))).toBe("INVALID_INTEGER");
  });

  it("decimals become integer minor units, exactly, with . or , as separator", () => {
    expect(parseDecimal("100.00", 2)).toBe(10000);
    expect(parseDecimal("3584.72", 2)).toBe(358472);
    expect(parseDecimal("12,5", 2)).toBe(1250);
    expect(parseDecimal("0.1", 2)).toBe(10);
    expect(parseDecimal("-0.05", 2)).toBe(-5);
    expect(parseDecimal("1 299,90", 2)).toBe(129990);
    expect(parseDecimal("7", 0)).toBe(7);
    expect(parseDecimal("1.230", 2)).toBe(123);
    expect(reason(parseDecimal("1.234", 2))).toBe("DECIMAL_PRECISION_EXCEEDED");
    expect(reason(parseDecimal("1,234.56", 2))).toBe("INVALID_DECIMAL");
    expect(reason(parseDecimal("abc", 2))).toBe("INVALID_DECIMAL");
    expect(reason(parseDecimal("99999999999999999.99", 2))).toBe("NUMBER_OUT_OF_RANGE");
  });

  it("decimals from XLSX numbers: shortest text, formula float noise rounded, finer values refused", () => {
    expect(parseDecimal(19.99, 2)).toBe(1999);
    expect(parseDecimal(0.1 + 0.2, 2)).toBe(30);
    expect(parseDecimal(23.988000000000003, 3)).toBe(23988);
    expect(reason(parseDecimal(0.125, 2))).toBe("DECIMAL_PRECISION_EXCEEDED");
  });

  it("dates: ISO, DD.MM.YYYY, Date cells and Excel serials; impossible dates refused", () => {
    expect(parseDate("2026-02-13")).toBe("2026-02-13");
    expect(parseDate("13.02.2026")).toBe("2026-02-13");
    expect(parseDate("1.2.2026")).toBe("2026-02-01");
    expect(parseDate(new Date(Date.UTC(2026, 1, 13)))).toBe("2026-02-13");
    expect(parseDate(46066)).toBe("2026-02-13");
    expect(reason(parseDate("2026-02-30"))).toBe("INVALID_DATE");
    expect(reason(parseDate("завтра"))).toBe("INVALID_DATE");
  });

  it("text is trimmed, empty is null, unpaired surrogates and cell errors are refused", () => {
    expect(parseString("  Молоток  ")).toBe("Молоток");
    expect(parseString("   ")).toBeNull();
    expect(parseString(42)).toBe("42");
    expect(reason(parseString("a\uD800b"))).toBe("INVALID_TEXT");
    expect(reason(parseString(new CellErrorValue("#N/A")))).toBe("CELL_ERROR");
    expect(reason(parseInteger(new CellErrorValue("#REF!")))).toBe("CELL_ERROR");
  });

  it("a number cell gives the decimal its shortest text shows, on the fast path too (property)", () => {
    // The reading of a number through its text, as a spreadsheet shows it.
    const viaText = (x: number, units: number) => {
      const text = String(x);
      if (!text.includes("e")) {
        const parsed = parseDecimal(text, units);
        if (reason(parsed) !== "DECIMAL_PRECISION_EXCEEDED") return parsed;
      }
      const rounded = Number(x.toFixed(Math.min(units, 20)));
      if (Math.abs(x - rounded) <= Math.abs(x) * 8 * Number.EPSILON) {
        return parseDecimal(rounded.toFixed(units), units);
      }
      return Math.abs(x) >= 1e21 ? "NUMBER_OUT_OF_RANGE" : "DECIMAL_PRECISION_EXCEEDED";
    };
    const asReason = (p: unknown) => (typeof p === "number" ? p : (reason(p) ?? p));
    const scaledInt = fc
      .tuple(fc.maxSafeInteger(), fc.integer({ min: 0, max: 8 }))
      .map(([n, k]) => n / 10 ** k);
    const number = fc.oneof(scaledInt, fc.double({ noNaN: true, noDefaultInfinity: true }));
    fc.assert(
      fc.property(number, fc.integer({ min: 0, max: 6 }), (x, units) => {
        expect(asReason(parseDecimal(x, units))).toEqual(asReason(viaText(x, units)));
      }),
      { numRuns: 20_000 },
    );
    expect(parseDecimal(15474.99, 2)).toBe(1547499);
    expect(parseDecimal(-0, 2)).toBe(0);
    expect(reason(parseDecimal(0.125, 2))).toBe("DECIMAL_PRECISION_EXCEEDED");
    expect(parseDecimal(0.1 + 0.2, 2)).toBe(30);
  });
});
