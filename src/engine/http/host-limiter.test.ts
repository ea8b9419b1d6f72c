import { describe, expect, it } from "vitest";
import { HostLimiter, HostLimiterPool } from "./host-limiter.ts";

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs `n` tasks of `ms` each through `limiter`, returning start times and peak concurrency. */
async function drive(limiter: HostLimiter, n: number, ms: number) {
  let running = 0;
  let peak = 0;
  const starts: number[] = [];
  await Promise.all(
    Array.from({ length: n }, () =>
      limiter.run(async () => {
        starts.push(performance.now());
        running++;
        peak = Math.max(peak, running);
        await wait(ms);
        running--;
      }),
    ),
  );
  return { starts, peak };
}

describe("HostLimiter", () => {
  it("limits concurrency", async () => {
    const { peak } = await drive(new HostLimiter({ concurrency: 2 }), 6, 20);
    expect(peak).toBe(2);
  });

  it("spaces starts to requestsPerSecond", async () => {
    const started = performance.now();
    const { starts } = await drive(new HostLimiter({ requestsPerSecond: 20 }), 5, 0);
    // 5 starts at 20/s: 0, 50, 100, 150, 200 ms.
    expect(starts.at(-1)! - started).toBeGreaterThanOrEqual(180);
    expect(starts.at(-1)! - started).toBeLessThan(1000);
  });

  it("lets `burst` requests start together", async () => {
    const started = performance.now();
    const { starts } = await drive(new HostLimiter({ requestsPerSecond: 10, burst: 3 }), 3, 0);
    expect(starts.at(-1)! - started).toBeLessThan(50);
  });

  it("drops a queued task when its signal aborts", async () => {
    const limiter = new HostLimiter({ concurrency: 1 });
    const blocker = limiter.run(() => wait(100));
    const controller = new AbortController();
    let ran = false;
    const queued = limiter.run(async () => {
      ran = true;
    }, controller.signal);
    expect(limiter.waiting).toBe(1);
    controller.abort(new Error("cancelled"));
    await expect(queued).rejects.toThrow();
    await blocker;
    expect(ran).toBe(false);
  });

  it("rejects invalid limits", () => {
    expect(() => new HostLimiter({ requestsPerSecond: 0 })).toThrow(RangeError);
    expect(() => new HostLimiter({ concurrency: 1.5 })).toThrow(RangeError);
    expect(() => new HostLimiter({ burst: 0 })).toThrow(RangeError);
  });
});

describe("HostLimiterPool", () => {
  it("shares one limiter per host and applies per-host overrides", async () => {
    const pool = new HostLimiterPool({
      concurrency: 1,
      perHost: {
        "api.example.com": { concurrency: 3 },
        "slow.example.com:8443": { concurrency: 2 },
      },
    });
    const a = pool.forUrl(new URL("https://api.example.com/a"));
    expect(pool.forUrl(new URL("https://api.example.com/b?x=1"))).toBe(a);
    expect(pool.forUrl(new URL("https://other.example.com/"))).not.toBe(a);
    expect((await drive(a, 6, 20)).peak).toBe(3);
    expect((await drive(pool.forUrl(new URL("https://slow.example.com:8443/")), 4, 20)).peak).toBe(
      2,
    );
    expect((await drive(pool.forUrl(new URL("https://other.example.com/")), 3, 10)).peak).toBe(1);
  });
});

describe("HostLimiter without a rate (the concurrency gate)", () => {
  it("never runs more than `concurrency` tasks and runs them in order", async () => {
    const limiter = new HostLimiter({ concurrency: 2 });
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const task = (i: number) => async () => {
      running++;
      peak = Math.max(peak, running);
      order.push(i);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return i;
    };
    const results = await Promise.all(Array.from({ length: 7 }, (_, i) => limiter.run(task(i))));
    expect(results).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(peak).toBe(2);
    expect(limiter.running).toBe(0);
    expect(limiter.waiting).toBe(0);
  });

  it("drops a queued task on abort and frees the slot of a failed one", async () => {
    const limiter = new HostLimiter({ concurrency: 1 });
    let release: () => void = () => {};
    const first = limiter.run(() => new Promise<string>((r) => (release = () => r("first"))));
    const controller = new AbortController();
    const queued = limiter.run(async () => "never", controller.signal);
    expect(limiter.waiting).toBe(1);
    controller.abort(new Error("cancelled"));
    await expect(queued).rejects.toThrow("cancelled");
    expect(limiter.waiting).toBe(0);
    release();
    await expect(first).resolves.toBe("first");
    await expect(limiter.run(() => Promise.reject(new Error("bad")))).rejects.toThrow("bad");
    await expect(limiter.run(async () => "after")).resolves.toBe("after");
  });
});
