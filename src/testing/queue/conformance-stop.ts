import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { QueueStoppedError } from "../../engine/queue/queue-errors.ts";
import { type ConformanceContext, FAST, recorder } from "./conformance-context.ts";
import { waitFor, waitForState } from "./wait-for.ts";

/** Graceful stop. */
export function stopTests(c: ConformanceContext): void {
  it("stop lets in-flight messages finish and takes no new ones", async () => {
    const q = await c.open();
    const name = c.queueName();
    const [first, second] = await q.sendBatch(name, [{ payload: 1 }, { payload: 2 }]);
    let finished = 0;
    const r = recorder(async () => {
      await sleep(400);
      finished++;
    });
    await q.work(name, { ...FAST, concurrency: 1 }, r.handler);
    await waitFor("first started", () => r.calls.length === 1);
    const t0 = Date.now();
    await q.stop({ graceMs: 10_000 });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(finished).toBe(1);
    expect((await q.getMessage(name, first!))?.state).toBe("completed");
    await sleep(300);
    expect(r.calls).toHaveLength(1);
    expect((await q.getMessage(name, second!))?.state).toBe("queued");
    // Sending still works after stop, and a new worker takes what is left.
    await q.send(name, 3);
    await q.work(name, FAST, r.handler);
    await waitFor("the rest", () => r.calls.length === 3);
  });

  it("past the grace period a handler is aborted and its message released, attempt unused", async () => {
    const q = await c.open();
    const name = c.queueName();
    const id = await q.send(name, "slow", { retryLimit: 0 });
    let reason: unknown;
    const r = recorder(
      (_m, signal) =>
        new Promise<void>((resolve) => {
          signal.addEventListener("abort", () => {
            reason = signal.reason;
            resolve();
          });
        }),
    );
    await q.work(name, FAST, r.handler);
    await waitFor("started", () => r.calls.length === 1);
    const t0 = Date.now();
    await q.stop({ graceMs: 200 });
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(reason).toBeInstanceOf(QueueStoppedError);
    expect(await q.getMessage(name, id!)).toMatchObject({ state: "queued", attempts: 0 });
    // retryLimit 0, yet it runs again: the released delivery did not count.
    const again = recorder();
    const other = await c.open();
    await other.work(name, FAST, again.handler);
    await waitFor("redelivered", () => again.calls.length === 1);
    expect(again.calls[0]!.message).toMatchObject({ id, attempt: 1 });
    await waitForState(other, name, id!, "completed");
  });
}
