import { describe, expect, it } from "vitest";
import { isIntegerLexeme, pythonNumberFromLexeme } from "./python-number-lexeme.ts";

describe("pythonNumberFromLexeme", () => {
  it.each([
    ["4.0", "4.0"],
    ["1E+2", "100.0"],
    ["1e-7", "1e-07"],
    ["0.00001", "1e-05"],
    ["1e16", "1e+16"],
    ["1e400", "Infinity"],
    ["-1e400", "-Infinity"],
    ["12345678901234567890123", "12345678901234567890123"],
    ["-12345678901234567890123", "-12345678901234567890123"],
    ["9007199254740993", "9007199254740993"],
    ["0.1", "0.1"],
    ["1.0e0", "1.0"],
    ["123456789012345678.0", "1.2345678901234568e+17"],
    ["1e005", "100000.0"],
    ["-0", "0"],
    ["0", "0"],
    ["-0.0", "-0.0"],
    ["-0e0", "-0.0"],
    ["1e-400", "0.0"],
    ["100", "100"],
  ])("%s prints as %s", (lexeme, expected) => {
    expect(pythonNumberFromLexeme(lexeme)).toBe(expected);
  });

  it("classifies ints by lexeme, not by value", () => {
    expect(isIntegerLexeme("4")).toBe(true);
    expect(isIntegerLexeme("-17")).toBe(true);
    expect(isIntegerLexeme("4.0")).toBe(false);
    expect(isIntegerLexeme("4e0")).toBe(false);
    expect(isIntegerLexeme("4E0")).toBe(false);
  });
});
