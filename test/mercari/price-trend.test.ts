import { describe, expect, it } from "vitest";
import {
  bucketOf,
  priceTrend,
  quantile,
  trendWindow,
} from "../../src/pipelines/mercari/stages/results/price-trend.ts";

describe("price trend", () => {
  it("buckets by UTC day, or by the Monday of the week", () => {
    expect(bucketOf("2026-01-14T23:59:59.000Z", "day")).toBe("2026-01-14");
    expect(bucketOf("2026-01-14T10:00:00.000Z", "week")).toBe("2026-01-12"); // Wednesday
    expect(bucketOf("2026-01-12T00:00:00.000Z", "week")).toBe("2026-01-12"); // Monday
    expect(bucketOf("2026-01-18T23:00:00.000Z", "week")).toBe("2026-01-12"); // Sunday
  });

  it("quantiles interpolate linearly", () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([10], 0.25)).toBe(10);
    expect(quantile([1, 2, 3, 4, 5], 0.25)).toBe(2);
  });

  it("counts and spreads sold prices per bucket, oldest first", () => {
    const sold = [
      { price: 300, sold_out_at: "2026-01-02T01:00:00.000Z" },
      { price: 100, sold_out_at: "2026-01-01T01:00:00.000Z" },
      { price: 500, sold_out_at: "2026-01-02T05:00:00.000Z" },
      { price: 100, sold_out_at: "2026-01-02T09:00:00.000Z" },
    ];
    expect(priceTrend(sold, "day")).toEqual([
      { bucket: "2026-01-01", count: 1, min: 100, p25: 100, median: 100, p75: 100, max: 100 },
      { bucket: "2026-01-02", count: 3, min: 100, p25: 200, median: 300, p75: 400, max: 500 },
    ]);
  });

  it("a date means its UTC midnight; the default window is the 30 days before now", () => {
    const now = new Date("2026-02-01T12:00:00Z");
    expect(trendWindow(now, "2026-01-01", "2026-01-08")).toEqual({
      from: "2026-01-01T00:00:00.000Z",
      to: "2026-01-08T00:00:00.000Z",
    });
    expect(trendWindow(now)).toEqual({
      from: "2026-01-02T12:00:00.000Z",
      to: "2026-02-01T12:00:00.000Z",
    });
  });

  it("an impossible date or an empty window is refused, not rolled over", () => {
    const now = new Date("2026-02-01T12:00:00Z");
    expect(() => trendWindow(now, "2026-02-31")).toThrow(/from must be a real date.*2026-02-31/);
    expect(() => trendWindow(now, undefined, "2026-13-01")).toThrow(/to must be a real date/);
    expect(() => trendWindow(now, "2026-01-20", "2026-01-01")).toThrow(/from .* must be before to/);
    expect(() => trendWindow(now, "2026-03-01")).toThrow(/must be before to .*now/);
    expect(trendWindow(now, "2024-02-29", "2024-03-01").from).toBe("2024-02-29T00:00:00.000Z");
  });
});
