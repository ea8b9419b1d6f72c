import { describe, expect, it } from "vitest";
import { pythonFloatRepr } from "./python-float-repr.ts";

describe("pythonFloatRepr", () => {
  it.each([
    [4, "4.0"],
    [100, "100.0"],
    [1e15, "1000000000000000.0"],
    [1e16, "1e+16"],
    [1.5e300, "1.5e+300"],
    [1e-7, "1e-07"],
    [0.00001, "1e-05"],
    [0.0001, "0.0001"],
    [0.1, "0.1"],
    [0.5, "0.5"],
    [-2.5, "-2.5"],
    [Number("123456789012345678"), "1.2345678901234568e+17"],
    [2 ** 53, "9007199254740992.0"],
    [1e21, "1e+21"],
    [1e22, "1e+22"],
    [1.7976931348623157e308, "1.7976931348623157e+308"],
    [5e-324, "5e-324"],
    [1.23e-18, "1.23e-18"],
    [1234.5678, "1234.5678"],
    [0, "0.0"],
    [-0, "-0.0"],
    [Number.POSITIVE_INFINITY, "Infinity"],
    [Number.NEGATIVE_INFINITY, "-Infinity"],
    [Number.NaN, "NaN"],
  ])("formats %s as %s", (value, expected) => {
    expect(pythonFloatRepr(value)).toBe(expected);
  });

  it("switches notation exactly at decpt 16 / -4", () => {
    expect(pythonFloatRepr(9999999999999998)).toBe("9999999999999998.0");
    expect(pythonFloatRepr(Number("12345678901234567"))).toBe("1.2345678901234568e+16");
    expect(pythonFloatRepr(0.00012)).toBe("0.00012");
    expect(pythonFloatRepr(0.000012)).toBe("1.2e-05");
  });
});
