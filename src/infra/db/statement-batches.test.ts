import { expect, it } from "vitest";
import { chunks } from "./statement-batches.ts";

it("splits rows into batches of at most the size, in order, the last one shorter", () => {
  expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  expect(chunks([1, 2], 5)).toEqual([[1, 2]]);
  expect(chunks([], 3)).toEqual([]);
});

it("refuses a size that would never finish or drop rows", () => {
  expect(() => chunks([1], 0)).toThrow(/chunk size 0/);
  expect(() => chunks([1], 1.5)).toThrow(/chunk size 1.5/);
});
