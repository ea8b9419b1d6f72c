import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors.ts";
import { applyHeapGrowth } from "./heap-growth.ts";

describe("applyHeapGrowth", () => {
  it("doubles at most by default, takes a whole percent, and 0 leaves the factor to V8", () => {
    expect(applyHeapGrowth({})).toBe(100);
    expect(applyHeapGrowth({ TIDEMARK_HEAP_GROWING_PERCENT: " 50 " })).toBe(50);
    expect(applyHeapGrowth({ TIDEMARK_HEAP_GROWING_PERCENT: "" })).toBe(100);
    expect(applyHeapGrowth({ TIDEMARK_HEAP_GROWING_PERCENT: "0" })).toBe(0);
  });

  it.each(["lots", "-1", "1.5", "1001", "0x10"])("refuses %j naming the variable", (value) => {
    const refuse = () => applyHeapGrowth({ TIDEMARK_HEAP_GROWING_PERCENT: value });
    expect(refuse).toThrow(ConfigError);
    expect(refuse).toThrow(
      `TIDEMARK_HEAP_GROWING_PERCENT: expected a whole number from 0 to 1000, got "${value}"`,
    );
  });
});
