import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import type { QueueHandler } from "../../engine/queue/queue.ts";
import { type ConformanceContext, FAST } from "./conformance-context.ts";
import { waitForState } from "./wait-for.ts";

/** A promise and the function that resolves it (or rejects it). */
function gate(): { done: Promise<void>; open(): void; fail(err: Error): void } {
  let open!: () => void;
  let fail!: (err: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { done, open, fail };
}

/** Work a handler defers: the slot is free once it returns, the message done once the work is. */
export function deferredTests(c: ConformanceContext): void {
  it("a handler's deferred work frees its slot, and its message completes only once the work has", async () => {
    const q = await c.open();
    const name = c.queueName();
    const [first, second] = await q.sendBatch(name, [{ payload: "a" }, { payload: "b" }]);
    const write = gate();
    const started: string[] = [];
    const handler: QueueHandler = async (message, _signal, finish) => {
      started.push(message.payload as string);
      if (message.payload === "a") finish.defer(write.done);
    };
    await q.work(name, { ...FAST, concurrency: 1 }, handler);
    // With one slot, b runs while a's deferred work is still pending.
    await waitForState(q, name, second!, "completed");
    expect(started).toEqual(["a", "b"]);
    expect((await q.getMessage(name, first!))?.state).toBe("active");
    write.open();
    await waitForState(q, name, first!, "completed");
    expect(started).toEqual(["a", "b"]);
  });

  it("deferred work that rejects fails the message, which is retried and then completes", async () => {
    const q = await c.open();
    const name = c.queueName();
    const id = await q.send(name, "x", {
      retryLimit: 2,
      retryDelaySeconds: c.options.retryDelaySeconds,
      retryBackoff: false,
    });
    const attempts: number[] = [];
    const handler: QueueHandler = async (message, _signal, finish) => {
      attempts.push(message.attempt);
      if (message.attempt === 1) {
        const write = gate();
        finish.defer(write.done);
        setTimeout(() => write.fail(new Error("write failed on attempt 1")), 50);
      }
    };
    await q.work(name, FAST, handler);
    const done = await waitForState(q, name, id!, "completed", 20_000);
    expect(attempts).toEqual([1, 2]);
    expect(done.attempts).toBe(2);
  });

  it("stop waits for deferred work and records the message completed", async () => {
    const q = await c.open();
    const name = c.queueName();
    const id = await q.send(name, "slow write");
    let written = false;
    const handler: QueueHandler = async (_message, _signal, finish) => {
      finish.defer(
        sleep(400).then(() => {
          written = true;
        }),
      );
    };
    await q.work(name, FAST, handler);
    await waitForState(q, name, id!, "active");
    await q.stop({ graceMs: 10_000 });
    expect(written).toBe(true);
    expect((await q.getMessage(name, id!))?.state).toBe("completed");
  });
}
