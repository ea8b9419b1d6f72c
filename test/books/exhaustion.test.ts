import { describe, expect, it } from "vitest";
import { checkExhaustion } from "../../src/pipelines/books/stages/collect/exhaustion.ts";

describe("checkExhaustion", () => {
  it("is never true for a failed call or an unknown totalItems", () => {
    expect(checkExhaustion(false, 0, 0, 0)).toBe(false);
    expect(checkExhaustion(false, 100, 100, 0)).toBe(false);
    expect(checkExhaustion(true, undefined, 0, 0)).toBe(false);
  });

  it("is true for an empty page or once startIndex + items reaches totalItems", () => {
    expect(checkExhaustion(true, 150, 40, 0)).toBe(true);
    expect(checkExhaustion(true, 120, 80, 40)).toBe(true);
    expect(checkExhaustion(true, 110, 80, 40)).toBe(true); // totalItems shrank
    expect(checkExhaustion(true, 0, 0, 0)).toBe(true); // no results at all
  });

  it("is false while items remain", () => {
    expect(checkExhaustion(true, 150, 40, 40)).toBe(false);
    expect(checkExhaustion(true, 121, 80, 40)).toBe(false);
  });
});
