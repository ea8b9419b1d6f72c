import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { PermanentQueueError } from "../../engine/queue/queue-errors.ts";
import { type ConformanceContext, FAST, recorder } from "./conformance-context.ts";
import { waitFor, waitForState } from "./wait-for.ts";

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
    const dead = await waitForState(q, name, id!, "dead", 20_000);
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
    const dead = await waitForState(q, name, id!, "dead");
    expect(dead).toMatchObject({ attempts: 1, lastError: "cannot ever work" });
    await sleep(500);
    expect(r.calls).toHaveLength(1);
  });

  /** A message that always fails, retried twice: the times of its three deliveries. */
  async function attemptTimes(backoff: boolean) {
    const q = await c.open();
    const name = c.queueName();
    const id = await q.send(name, "x", {
      retryLimit: 2,
      retryDelaySeconds: c.options.retryDelaySeconds,
      retryBackoff: backoff,
    });
    const r = recorder(async () => {
      throw new Error("always");
    });
    await q.work(name, FAST, r.handler);
    await waitFor("3 attempts", () => r.calls.length >= 3, 30_000);
    const [a, b, d] = r.calls.map((x) => x.at) as [number, number, number];
    const dead = () => waitForState(q, name, id!, "dead");
    return { first: b - a, second: d - b, dead };
  }

  it("retries back off exponentially: the second wait is at least twice the delay", async () => {
    const delayMs = c.options.retryDelaySeconds * 1000;
    const { first, second, dead } = await attemptTimes(true);
    expect(first).toBeGreaterThanOrEqual(delayMs - 50);
    expect(second).toBeGreaterThanOrEqual(2 * delayMs - 50);
    await dead();
  });

  it("without backoff, retries wait the same delay each time", async () => {
    const delayMs = c.options.retryDelaySeconds * 1000;
    const { first, second } = await attemptTimes(false);
    expect(first).toBeGreaterThanOrEqual(delayMs - 50);
    expect(second).toBeGreaterThanOrEqual(delayMs - 50);
    expect(second).toBeLessThan(2 * delayMs);
  });

  it("dead-lettered messages can be retried: fresh attempts, deliverable now; others stay put", async () => {
    const q = await c.open();
    const name = c.queueName();
    let failing = true;
    const r = recorder(async (m) => {
      if (!failing) return;
      if (m.payload === "permanent") throw new PermanentQueueError("not now");
      throw new Error("transient");
    });
    const poison = await q.send(name, "poison", { retryLimit: 1, retryDelaySeconds: 0 });
    const permanent = await q.send(name, "permanent", { retryLimit: 3, retryDelaySeconds: 0 });
    await q.work(name, FAST, r.handler);
    const state = async (id: string) => (await q.getMessage(name, id))?.state;
    await waitFor(
      "both dead",
      async () => (await state(poison!)) === "dead" && (await state(permanent!)) === "dead",
    );
    expect(await q.retryDead(name, [])).toEqual([]);
    failing = false;
    const other = await q.send(name, "fine");
    await waitFor("fine done", async () => (await state(other!)) === "completed");
    // Unknown, completed and malformed ids are not dead: nothing happens to them.
    expect(
      await q.retryDead(name, [poison!, other!, "nope", "0190a4b2-0000-7000-8000-000000000000"]),
    ).toEqual([poison]);
    await waitFor("poison done", async () => (await state(poison!)) === "completed");
    // It came back as a first attempt, not a third.
    expect(r.calls.filter((d) => d.message.id === poison).map((d) => d.message.attempt)).toEqual([
      1, 2, 1,
    ]);
    expect(await q.retryDead(name, "all")).toEqual([permanent]);
    await waitFor("permanent done", async () => (await state(permanent!)) === "completed");
    expect(await q.deadLetters(name)).toEqual([]);
  });

  it("a retried message does not duplicate a live message with its singleton key", async () => {
    const q = await c.open();
    const name = c.queueName();
    const dead = await q.send(name, "a", { singletonKey: "k", retryLimit: 0 });
    await q.work(name, FAST, async () => {
      throw new PermanentQueueError("no");
    });
    await waitForState(q, name, dead!, "dead");
    await q.stop();
    const live = await q.send(name, "b", { singletonKey: "k" });
    expect(live).not.toBeNull();
    expect(await q.retryDead(name, "all")).toEqual([]);
    expect((await q.getMessage(name, dead!))?.state).toBe("dead");
  });
}
