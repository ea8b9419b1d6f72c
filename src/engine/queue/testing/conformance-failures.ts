import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { PermanentQueueError } from "../queue-errors.ts";
import { type ConformanceContext, FAST, recorder } from "./conformance-context.ts";
import { waitFor } from "./wait-for.ts";

/** Retries, backoff and dead-lettering. */
export function failureTests(c: ConformanceContext): void {
  it("a poison message is retried up to the limit, then dead-lettered and kept", async () => {
    const q = await c.open();
    const name = c.queueName();
    const id = await q.send(
      name,
      { poison: true },
      { retryLimit: 2, retryDelaySeconds: c.options.retryDelaySeconds, retryBackoff: false },
    );
    const healthy = await q.send(name, { poison: false });
    const r = recorder(async (m) => {
      if ((m.payload as { poison: boolean }).poison)
        throw new Error(`boom on attempt ${m.attempt}`);
    });
    await q.work(name, FAST, r.handler);
    const dead = await waitFor(
      "dead-lettered",
      async () => {
        const m = await q.getMessage(name, id!);
        return m?.state === "dead" && m;
      },
      20_000,
    );
    const poisonCalls = r.calls.filter((d) => d.message.id === id);
    expect(poisonCalls.map((d) => d.message.attempt)).toEqual([1, 2, 3]);
    expect(dead).toMatchObject({ attempts: 3, payload: { poison: true } });
    expect(dead.lastError).toContain("boom on attempt 3");
    expect((await q.deadLetters(name)).map((m) => m.id)).toEqual([id]);
    expect((await q.getMessage(name, healthy!))?.state).toBe("completed");
    // Dead means dead: no further delivery.
    await sleep(c.options.retryDelaySeconds * 1000 + 500);
    expect(r.calls.filter((d) => d.message.id === id)).toHaveLength(3);
    expect((await q.stats()).find((s) => s.queue === name)?.deadLettered).toBe(1);
  });

  it("a PermanentQueueError dead-letters the message at once", async () => {
    const q = await c.open();
    const name = c.queueName();
    const id = await q.send(name, "x", { retryLimit: 5, retryDelaySeconds: 0 });
    const r = recorder(async () => {
      throw new PermanentQueueError("cannot ever work");
    });
    await q.work(name, FAST, r.handler);
    const dead = await waitFor("dead", async () => {
      const m = await q.getMessage(name, id!);
      return m?.state === "dead" && m;
    });
    expect(dead).toMatchObject({ attempts: 1, lastError: "cannot ever work" });
    await sleep(500);
    expect(r.calls).toHaveLength(1);
  });

  it("retries back off exponentially: the second wait is at least twice the delay", async () => {
    const q = await c.open();
    const name = c.queueName();
    const delayMs = c.options.retryDelaySeconds * 1000;
    const id = await q.send(name, "x", {
      retryLimit: 2,
      retryDelaySeconds: c.options.retryDelaySeconds,
      retryBackoff: true,
    });
    const r = recorder(async () => {
      throw new Error("always");
    });
    await q.work(name, FAST, r.handler);
    await waitFor("3 attempts", () => r.calls.length >= 3, 30_000);
    const [a, b, d] = r.calls.map((x) => x.at) as [number, number, number];
    expect(b - a).toBeGreaterThanOrEqual(delayMs - 50);
    expect(d - b).toBeGreaterThanOrEqual(2 * delayMs - 50);
    await waitFor("dead", async () => (await q.getMessage(name, id!))?.state === "dead");
  });

  it("without backoff, retries wait the same delay each time", async () => {
    const q = await c.open();
    const name = c.queueName();
    const delayMs = c.options.retryDelaySeconds * 1000;
    await q.send(name, "x", {
      retryLimit: 2,
      retryDelaySeconds: c.options.retryDelaySeconds,
      retryBackoff: false,
    });
    const r = recorder(async () => {
      throw new Error("always");
    });
    await q.work(name, FAST, r.handler);
    await waitFor("3 attempts", () => r.calls.length >= 3, 30_000);
    const [a, b, d] = r.calls.map((x) => x.at) as [number, number, number];
    expect(b - a).toBeGreaterThanOrEqual(delayMs - 50);
    expect(d - b).toBeGreaterThanOrEqual(delayMs - 50);
    expect(d - b).toBeLessThan(2 * delayMs);
  });
}
