import { describe, expect, it } from "vitest";
import { abortableSleep, parseRetryAfter, RetryPolicy } from "./retry-policy.ts";

describe("parseRetryAfter", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");
  it("reads delta seconds", () => {
    expect(parseRetryAfter("1", now)).toBe(1000);
    expect(parseRetryAfter(" 120 ", now)).toBe(120_000);
    expect(parseRetryAfter("0", now)).toBe(0);
  });
  it("reads an HTTP date relative to now, never negative", () => {
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Tue, 31 Dec 2024 23:59:00 GMT", now)).toBe(0);
  });
  it("ignores missing or garbage values", () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-5", now)).toBeUndefined();
  });
});

describe("RetryPolicy", () => {
  it("grows the backoff cap exponentially up to maxDelayMs, with full jitter", () => {
    const top = new RetryPolicy({
      baseDelayMs: 100,
      factor: 2,
      maxDelayMs: 1000,
      random: () => 0.999,
    });
    expect([1, 2, 3, 4, 5, 6].map((a) => top.backoffMs(a))).toEqual([99, 199, 399, 799, 999, 999]);
    const bottom = new RetryPolicy({ baseDelayMs: 100, random: () => 0 });
    expect(bottom.backoffMs(3)).toBe(0);
  });

  it("honours Retry-After only on 429 and 503, capped by maxRetryAfterMs", () => {
    const policy = new RetryPolicy({ maxRetryAfterMs: 5000, random: () => 0.5, baseDelayMs: 100 });
    const headers = new Headers({ "retry-after": "2" });
    expect(policy.delayMs(1, { status: 429, headers })).toBe(2000);
    expect(policy.delayMs(1, { status: 503, headers })).toBe(2000);
    expect(policy.delayMs(1, { status: 500, headers })).toBe(50);
    expect(
      policy.delayMs(1, { status: 503, headers: new Headers({ "retry-after": "3600" }) }),
    ).toBe(5000);
    expect(policy.delayMs(2)).toBe(100);
  });

  it("resolves HTTP-date Retry-After with the injected clock", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    const policy = new RetryPolicy({ now: () => now });
    const headers = new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:10 GMT" });
    expect(policy.retryAfterMs(429, headers)).toBe(10_000);
  });

  it("sleeps through the injected function", async () => {
    const calls: number[] = [];
    const policy = new RetryPolicy({ sleep: async (ms) => void calls.push(ms) });
    await policy.sleep(1234);
    expect(calls).toEqual([1234]);
  });

  it("rejects invalid options", () => {
    expect(() => new RetryPolicy({ maxAttempts: 0 })).toThrow(RangeError);
    expect(() => new RetryPolicy({ factor: 0.5 })).toThrow(RangeError);
    expect(() => new RetryPolicy({ baseDelayMs: -1 })).toThrow(RangeError);
  });
});

describe("abortableSleep", () => {
  it("rejects with the abort reason as soon as the signal aborts", async () => {
    const controller = new AbortController();
    const started = performance.now();
    const sleeping = abortableSleep(60_000, controller.signal);
    controller.abort(new Error("stop"));
    await expect(sleeping).rejects.toThrow("stop");
    expect(performance.now() - started).toBeLessThan(100);
  });
  it("rejects at once on an already aborted signal and resolves otherwise", async () => {
    await expect(abortableSleep(10, AbortSignal.abort(new Error("gone")))).rejects.toThrow("gone");
    await expect(abortableSleep(1)).resolves.toBeUndefined();
  });
});
