import { describe, expect, it } from "vitest";
import { badRatio, decideDq } from "../../../src/pipelines/snapshots/stages/quality/dq.ts";

const cfg = { min_fact_count: 1, max_bad_ratio: 0.1, allow_empty_snapshot: false };

describe("DQ", () => {
  it("bad_ratio = bad / (good + bad)", () => {
    expect(badRatio(950, 50)).toBe(0.05);
    expect(badRatio(0, 0)).toBe(0);
  });

  it("a ratio exactly at max_bad_ratio passes; just above fails", () => {
    expect(decideDq(cfg, 90, 10)).toEqual({ pass: true });
    expect(decideDq(cfg, 27, 3)).toEqual({ pass: true });
    expect(decideDq(cfg, 89, 11)).toMatchObject({ pass: false, reason: "DQ_BAD_RATIO_EXCEEDED" });
  });

  it("0 facts fail unless allow_empty_snapshot; min_fact_count applies otherwise", () => {
    expect(decideDq(cfg, 0, 0)).toMatchObject({ pass: false, reason: "DQ_EMPTY_SNAPSHOT" });
    expect(decideDq({ ...cfg, allow_empty_snapshot: true, min_fact_count: 5 }, 0, 0)).toEqual({
      pass: true,
    });
    expect(decideDq({ ...cfg, min_fact_count: 5 }, 4, 0)).toMatchObject({
      pass: false,
      reason: "DQ_MIN_FACT_COUNT",
    });
    expect(decideDq({ ...cfg, min_fact_count: 5 }, 5, 0)).toEqual({ pass: true });
  });
});
