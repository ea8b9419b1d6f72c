import { describe, expect, it } from "vitest";
import { findLoneSurrogate } from "./lone-surrogate.ts";

describe("findLoneSurrogate", () => {
  it("accepts well-formed text, including astral characters", () => {
    expect(findLoneSurrogate("")).toBe(-1);
    expect(findLoneSurrogate("a😀b\uffff")).toBe(-1);
  });

  it("finds lone high and low surrogates", () => {
    expect(findLoneSurrogate("ab\ud800")).toBe(2);
    expect(findLoneSurrogate("a\udc00")).toBe(1);
    expect(findLoneSurrogate("😀\ude00\ud83d")).toBe(2);
    expect(findLoneSurrogate("\udc00\ud800")).toBe(0);
  });
});
