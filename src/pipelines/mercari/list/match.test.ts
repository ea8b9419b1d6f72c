import { describe, expect, it } from "vitest";
import { foldText, keywordTokens, settingMatcher } from "./match.ts";

describe("setting match (inspect)", () => {
  it("folds width and case (NFKC + case folding) and splits on any whitespace", () => {
    expect(foldText("ＰＳ５ Ｐｒｏ")).toBe("ps5 pro");
    expect(keywordTokens("  Nintendo\u3000SWITCH  有機EL ")).toEqual([
      "nintendo",
      "switch",
      "有機el",
    ]);
  });

  it("keeps a row whose name holds every token and whose price is in range", () => {
    const m = settingMatcher({ keyword: "nintendo switch", min_price: 10_000, max_price: 30_000 });
    expect(m({ name: "Ｎｉｎｔｅｎｄｏ Switch 本体", price: 20_000 })).toBe(true);
    expect(m({ name: "Switch Nintendo", price: 10_000 })).toBe(true); // any order, bounds inclusive
    expect(m({ name: "Nintendo Switch", price: 30_001 })).toBe(false);
    expect(m({ name: "Nintendo Switch", price: 9_999 })).toBe(false);
    expect(m({ name: "Switch ケース", price: 20_000 })).toBe(false);
  });

  it("an open range checks names only", () => {
    const m = settingMatcher({ keyword: "ポケモンカード", min_price: null, max_price: null });
    expect(m({ name: "ポケモンカード まとめ", price: 1 })).toBe(true);
    expect(m({ name: "ﾎﾟｹﾓﾝｶｰﾄﾞ", price: 1 })).toBe(true); // half-width kana fold too
  });
});
