import { expect, it } from "vitest";
import { type ConformanceContext, FAST, recorder } from "./conformance-context.ts";
import { waitFor, waitForState } from "./wait-for.ts";

/** Listing messages by state (a retry's next attempt included) and deleting them. */
export function inspectionTests(c: ConformanceContext): void {
  it("lists waiting, retrying and dead messages newest first, with attempts, error and next attempt", async () => {
    const q = await c.open();
    const name = c.queueName();
    const dead = await q.send(name, { n: 1 }, { retryLimit: 0 });
    const retrying = await q.send(name, { n: 2 }, { retryLimit: 3, retryDelaySeconds: 600 });
    const r = recorder(async () => {
      throw new Error("upstream said 503");
    });
    await q.work(name, FAST, r.handler);
    await waitForState(q, name, dead!, "dead");
    await waitFor(
      "a first failed attempt",
      async () => (await q.getMessage(name, retrying!))?.lastError,
      10_000,
    );
    await q.stop({ graceMs: 0 });
    const waiting = await q.send(name, { n: 3 }, { startAfterSeconds: 3600 });

    const all = await q.messages(name);
    expect(all.map((m) => m.id)).toEqual([waiting, retrying, dead]);
    const retry = all.find((m) => m.id === retrying)!;
    expect(retry).toMatchObject({ state: "queued", attempts: 1 });
    expect(retry.lastError).toContain("upstream said 503");
    // The retry waits out its delay: its next attempt lies minutes ahead.
    expect(Date.parse(retry.nextAttemptAt!)).toBeGreaterThan(Date.now() + 300_000);
    expect((await q.messages(name, { state: "dead" })).map((m) => m.id)).toEqual([dead]);
    expect((await q.messages(name, { state: "queued", limit: 1 })).map((m) => m.id)).toEqual([
      waiting,
    ]);
  });

  it("deletes waiting and dead messages, never an unknown id", async () => {
    const q = await c.open();
    const name = c.queueName();
    const a = await q.send(name, "a", { startAfterSeconds: 3600 });
    const b = await q.send(name, "b", { startAfterSeconds: 3600 });
    const unknown = "0190a000-0000-7000-8000-000000000000";
    expect((await q.deleteMessages(name, [a!, unknown])).sort()).toEqual([a]);
    expect(await q.getMessage(name, a!)).toBeNull();
    expect((await q.messages(name)).map((m) => m.id)).toEqual([b]);
  });
}
