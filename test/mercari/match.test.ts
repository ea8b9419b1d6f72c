import { describe, expect, it } from "vitest";
import {
  type MatchSetting,
  settingFingerprint,
  settingMatcher,
} from "../../src/pipelines/mercari/stages/list/match.ts";

const SETTING: MatchSetting = {
  keyword: "comme des garcons",
  category_id: null,
  min_price: 10_000,
  max_price: 30_000,
  exclude_keyword: null,
};

describe("setting match (inspect)", () => {
  it("keeps a row found under the setting whatever its name, while its price is in range", () => {
    const m = settingMatcher(SETTING);
    const fp = settingFingerprint(SETTING);
    expect(m({ price: 20_000, setting_fingerprint: fp })).toBe(true);
    expect(m({ price: 10_000, setting_fingerprint: fp })).toBe(true); // bounds inclusive
    expect(m({ price: 30_001, setting_fingerprint: fp })).toBe(false);
    expect(m({ price: 9_999, setting_fingerprint: fp })).toBe(false);
    expect(m({ price: 20_000, setting_fingerprint: null })).toBe(false);
  });

  it("every part of the search changes the fingerprint; a blank exclude keyword is none", () => {
    const fp = settingFingerprint(SETTING);
    for (const change of [
      { keyword: "sharpnel" },
      { category_id: 7 },
      { min_price: null },
      { max_price: 40_000 },
      { exclude_keyword: "ケース" },
    ]) {
      expect(settingFingerprint({ ...SETTING, ...change })).not.toBe(fp);
    }
    expect(settingFingerprint({ ...SETTING, exclude_keyword: "" })).toBe(fp);
  });
});
