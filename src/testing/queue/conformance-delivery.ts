import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { type ConformanceContext, FAST, recorder } from "./conformance-context.ts";
import { waitFor, waitForState } from "./wait-for.ts";

/** Sending, delivery, singleton dedupe, delayed start, inspection. */
export function deliveryTests(c: ConformanceContext): void {
  it("delivers each payload once, intact, with its id, queue, attempt 1 and creation time", async () => {
    const q = await c.open();
    const name = c.queueName();
    const payloads = [
      { text: "héllo \u{1F30A}", nested: { list: [1, 2.5, null, true] } },
      "a plain string",
      42,
      null,
    ];
    const ids = await q.sendBatch(
      name,
      payloads.map((payload) => ({ payload })),
    );
    const single = await q.send(name, { one: 1 });
    expect(ids.every((id) => typeof id === "string")).toBe(true);
    expect(new Set([...ids, single]).size).toBe(5);
    const r = recorder();
    await q.work(name, { ...FAST, concurrency: 3 }, r.handler);
    await waitFor("5 deliveries", () => r.calls.length >= 5);
    await sleep(200);
    expect(r.calls).toHaveLength(5);
    const byId = new Map(r.calls.map((d) => [d.message.id, d.message]));
    expect(payloads.map((_, i) => byId.get(ids[i]!)?.payload)).toEqual(payloads);
    expect(byId.get(single!)?.payload).toEqual({ one: 1 });
    for (const d of r.calls) {
      expect(d.message).toMatchObject({ queue: name, attempt: 1 });
      expect(Date.parse(d.message.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    }
    const info = await waitForState(q, name, single!, "completed");
    expect(info).toMatchObject({ id: single, queue: name, attempts: 1, payload: { one: 1 } });
  });

  it("with many workers' slots busy, every one of 300 messages is handled exactly once", async () => {
    const q = await c.open();
    const name = c.queueName();
    await q.sendBatch(
      name,
      Array.from({ length: 300 }, (_, i) => ({ payload: i })),
    );
    const r = recorder(() => sleep(2));
    await q.work(name, { ...FAST, concurrency: 8, batchSize: 4 }, r.handler);
    await q.work(name, { ...FAST, concurrency: 5 }, r.handler);
    await waitFor("300 deliveries", () => r.calls.length >= 300);
    await sleep(300);
    const seen = r.calls.map((d) => d.message.payload as number).sort((a, b) => a - b);
    expect(seen).toEqual(Array.from({ length: 300 }, (_, i) => i));
  });

  it("never runs more handlers at once than the worker's concurrency", async () => {
    const q = await c.open();
    const name = c.queueName();
    await q.sendBatch(
      name,
      Array.from({ length: 30 }, (_, i) => ({ payload: i })),
    );
    let running = 0;
    let peak = 0;
    const r = recorder(async () => {
      peak = Math.max(peak, ++running);
      await sleep(25);
      running--;
    });
    await q.work(name, { ...FAST, concurrency: 3, batchSize: 3 }, r.handler);
    await waitFor("30 deliveries", () => r.calls.length >= 30);
    expect(peak).toBe(3);
  });

  it("singleton key: at most one queued-or-active message per key; free again once done", async () => {
    const q = await c.open();
    const name = c.queueName();
    const first = await q.send(name, "a", { singletonKey: "k" });
    expect(first).toEqual(expect.any(String));
    expect(await q.send(name, "b", { singletonKey: "k" })).toBeNull();
    const batch = await q.sendBatch(name, [
      { payload: "c", options: { singletonKey: "other" } },
      { payload: "d", options: { singletonKey: "other" } },
      { payload: "e" },
      { payload: "f", options: { singletonKey: "k" } },
    ]);
    expect(batch.map((id) => id !== null)).toEqual([true, false, true, false]);
    // Another queue has its own keys.
    expect(await q.send(c.queueName(), "g", { singletonKey: "k" })).toEqual(expect.any(String));

    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const r = recorder((m) => (m.payload === "a" ? held : Promise.resolve()));
    await q.work(name, { ...FAST, concurrency: 3 }, r.handler);
    await waitFor("k active", () => r.calls.some((d) => d.message.id === first));
    expect(await q.send(name, "h", { singletonKey: "k" })).toBeNull();
    release();
    await waitForState(q, name, first!, "completed");
    const again = await q.send(name, "i", { singletonKey: "k" });
    expect(again).toEqual(expect.any(String));
    await waitFor("the new k", () => r.calls.some((d) => d.message.id === again));
    expect(r.calls.map((d) => d.message.payload).sort()).toEqual(["a", "c", "e", "i"]);
  });

  it("a delayed message waits for its start time; others pass it", async () => {
    const q = await c.open();
    const name = c.queueName();
    const sentAt = Date.now();
    const late = await q.send(name, "late", { startAfterSeconds: 1.5 });
    const now = await q.send(name, "now");
    const r = recorder();
    await q.work(name, FAST, r.handler);
    await waitFor("the delayed message", () => r.calls.length >= 2, 10_000);
    expect(r.calls.map((d) => d.message.id)).toEqual([now, late]);
    expect(r.calls[1]!.at - sentAt).toBeGreaterThanOrEqual(1_400);
  });

  it("stats count queued, active and dead messages and the oldest waiting age", async () => {
    const q = await c.open();
    const name = c.queueName();
    await q.sendBatch(name, [{ payload: "a" }, { payload: "b" }, { payload: "c" }]);
    await q.send(name, "later", { startAfterSeconds: 3_600 });
    await sleep(1_100);
    const before = (await q.stats()).find((s) => s.queue === name);
    expect(before).toMatchObject({ queued: 4, active: 0, deadLettered: 0 });
    expect(before!.oldestQueuedAgeSeconds).toBeGreaterThanOrEqual(1);
    expect(before!.oldestQueuedAgeSeconds).toBeLessThan(60);

    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { PermanentQueueError } = await import("../../engine/queue/queue-errors.ts");
    const r = recorder(async (m) => {
      if (m.payload === "a") throw new PermanentQueueError("bad");
      if (m.payload === "b") await held;
    });
    await q.work(name, { ...FAST, concurrency: 1 }, r.handler);
    const during = await waitFor("b active", async () => {
      const s = (await q.stats()).find((x) => x.queue === name);
      return s?.active === 1 && s.deadLettered === 1 && s;
    });
    expect(during).toMatchObject({ queued: 2, active: 1, deadLettered: 1 });
    release();
    const after = await waitFor("c done", async () => {
      const s = (await q.stats()).find((x) => x.queue === name);
      return s?.queued === 1 && s.active === 0 && s;
    });
    // Only the delayed message waits, and it is not deliverable yet: no waiting age.
    expect(after).toMatchObject({
      queued: 1,
      active: 0,
      deadLettered: 1,
      oldestQueuedAgeSeconds: 0,
    });
  });

  it("getMessage returns null for an unknown id; invalid names and options are refused", async () => {
    const q = await c.open();
    const name = c.queueName();
    expect(await q.getMessage(name, "01900000-0000-7000-8000-000000000000")).toBeNull();
    expect(await q.getMessage(name, "not-an-id")).toBeNull();
    await expect(q.send("bad name!", 1)).rejects.toThrow(/invalid queue name/);
    await expect(q.send(name, 1, { retryLimit: -1 })).rejects.toThrow(/retryLimit/);
    await expect(q.send(name, 1, { visibilityTimeoutSeconds: 0 })).rejects.toThrow(/visibility/);
    await expect(q.work(name, { concurrency: 0 }, async () => {})).rejects.toThrow(/concurrency/);
  });
}
