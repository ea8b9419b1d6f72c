import { describe, expect, it } from "vitest";
import { checkLimit, takeToken, takeTokens } from "./token-bucket.ts";

const limit = { ratePerSecond: 4, burst: 2 };

describe("takeToken", () => {
  it("starts full, spends the burst, then says how long until the next token", () => {
    const first = takeToken(undefined, 1_000, limit);
    expect(first).toEqual({ granted: true, state: { tokens: 1, atMs: 1_000 }, waitMs: 0 });
    const second = takeToken(first.state, 1_000, limit);
    expect(second.granted).toBe(true);
    const third = takeToken(second.state, 1_100, limit);
    // 100 ms at 4/s refilled 0.4 of a token: 0.6 more takes 150 ms.
    expect(third.granted).toBe(false);
    expect(third.waitMs).toBe(150);
    expect(takeToken(second.state, 1_250, limit).granted).toBe(true);
  });

  it("refills no further than the burst", () => {
    const after = takeToken({ tokens: 0, atMs: 0 }, 3_600_000, limit);
    expect(after.state.tokens).toBe(1);
  });

  it("never lets a clock that is behind the stored state refill or move it back", () => {
    const stored = { tokens: 0.5, atMs: 10_000 };
    const behind = takeToken(stored, 9_000, limit);
    expect(behind.granted).toBe(false);
    // 0.5 token at 4/s is 125 ms after the stored time, which is 1 s ahead of this clock.
    expect(behind.waitMs).toBe(1_125);
    expect(behind.state.atMs).toBe(10_000);
  });

  it("takes several tokens only as far as the bucket holds them, and none in advance", () => {
    const big = { ratePerSecond: 1_000, burst: 100 };
    expect(takeTokens(undefined, 0, big, 50)).toMatchObject({ count: 50, state: { tokens: 50 } });
    expect(takeTokens({ tokens: 2.5, atMs: 0 }, 0, big, 50)).toMatchObject({
      count: 2,
      state: { tokens: 0.5 },
    });
    expect(takeTokens({ tokens: 0.5, atMs: 0 }, 0, big, 50)).toMatchObject({
      granted: false,
      count: 0,
      waitMs: 1,
    });
  });

  it("rejects unusable limits", () => {
    expect(() => checkLimit({ ratePerSecond: 0, burst: 1 })).toThrow(RangeError);
    expect(() => checkLimit({ ratePerSecond: Number.NaN, burst: 1 })).toThrow(RangeError);
    expect(() => checkLimit({ ratePerSecond: 1, burst: 0 })).toThrow(RangeError);
    expect(() => checkLimit({ ratePerSecond: 1, burst: 1.5 })).toThrow(RangeError);
    expect(() => checkLimit({ ratePerSecond: 0.5, burst: 1 })).not.toThrow();
  });
});
