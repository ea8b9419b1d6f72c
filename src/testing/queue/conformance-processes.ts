import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { expect, it, onTestFinished } from "vitest";
import { type LogEvent, readLog, spawnChildWorker } from "./child-worker.ts";
import { type ConformanceContext, FAST, recorder } from "./conformance-context.ts";
import type { ChildPlan } from "./queue-child.ts";
import { waitFor, waitForState } from "./wait-for.ts";

const CHILD_START_MS = 30_000;

function tempLog(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "tm-queue-log-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, "events.jsonl");
}

function startChild(plan: ChildPlan) {
  const child = spawnChildWorker(plan);
  onTestFinished(async () => {
    if (child.process.exitCode === null && child.process.signalCode === null) {
      child.process.kill("SIGKILL");
      await child.exited;
    }
  });
  return child;
}

/** Crashed workers, competing worker processes, and hold renewal. */
export function processTests(c: ConformanceContext): void {
  it("a worker killed mid-message (SIGKILL) → the message is delivered again after the timeout", async () => {
    const q = await c.open();
    const name = c.queueName();
    const vtMs = c.options.visibilitySeconds * 1000;
    const id = await q.send(
      name,
      { crash: "me" },
      {
        visibilityTimeoutSeconds: c.options.visibilitySeconds,
        retryLimit: 2,
        retryDelaySeconds: 0,
        retryBackoff: false,
      },
    );
    const log = tempLog();
    const child = startChild({ spec: c.target().spec, queue: name, work: FAST, log, holdMs: null });
    await child.ready;
    const started = await waitFor(
      "the child to start the message",
      () => readLog(log).find((e) => e.ev === "start" && e.id === id),
      CHILD_START_MS,
    );
    child.process.kill("SIGKILL");
    expect(await child.exited).toBe("SIGKILL");

    const r = recorder();
    await q.work(name, FAST, r.handler);
    await waitFor("redelivery", () => r.calls.length > 0, vtMs + c.options.expirySlackMs + 5_000);
    const again = r.calls[0]!;
    expect(again.message).toMatchObject({ id, attempt: 2, payload: { crash: "me" } });
    // Not before the visibility timeout ran out (the child never renewed after the kill).
    expect(again.at - started.t).toBeGreaterThanOrEqual(vtMs - 100);
    await waitForState(q, name, id!, "completed");
    expect(readLog(log).filter((e) => e.ev === "end")).toEqual([]);
  }, 60_000);

  it("two workers in separate processes never handle one message at the same time", async () => {
    const q = await c.open();
    const name = c.queueName();
    const count = 40;
    const log = tempLog();
    const plan: ChildPlan = {
      spec: c.target().spec,
      queue: name,
      work: { concurrency: 3, batchSize: 2, pollIntervalMs: 20 },
      log,
      holdMs: 60,
    };
    const children = [startChild(plan), startChild(plan)];
    await Promise.all(children.map((w) => w.ready));
    const ids = await q.sendBatch(
      name,
      Array.from({ length: count }, (_, i) => ({ payload: i })),
    );
    const ends = await waitFor(
      "every message handled",
      () => {
        const events = readLog(log);
        return events.filter((e) => e.ev === "end").length >= count && events;
      },
      30_000,
    );
    await sleep(300);
    const events = readLog(log);
    expect(events.length).toBe(ends.length);
    const byId = new Map<string, LogEvent[]>();
    for (const e of events) byId.set(e.id, [...(byId.get(e.id) ?? []), e]);
    expect([...byId.keys()].sort()).toEqual([...ids].sort());
    for (const [, evs] of byId) {
      // One start and one end each: never two handlers on one message, concurrent or not.
      expect(evs.map((e) => e.ev).sort()).toEqual(["end", "start"]);
      expect(evs[0]!.pid).toBe(evs[1]!.pid);
    }
    const pids = new Set(events.map((e) => e.pid));
    expect(pids.size).toBe(2);
  }, 60_000);

  it("a handler that outlives the visibility timeout keeps its message while it renews it", async () => {
    const name = c.queueName();
    const vtMs = c.options.visibilitySeconds * 1000;
    const [a, b] = [await c.open(), await c.open()];
    const id = await a.send(name, "long", {
      visibilityTimeoutSeconds: c.options.visibilitySeconds,
    });
    const r = recorder(() => sleep(vtMs * 2.5));
    await a.work(name, FAST, r.handler);
    await waitFor("start", () => r.calls.length > 0);
    const other = recorder();
    await b.work(name, FAST, other.handler);
    await waitFor(
      "completed",
      async () => (await a.getMessage(name, id!))?.state === "completed",
      vtMs * 4 + 5_000,
    );
    await sleep(300);
    expect(r.calls).toHaveLength(1);
    expect(other.calls).toHaveLength(0);
  }, 60_000);
}
