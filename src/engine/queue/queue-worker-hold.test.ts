import pino from "pino";
import { afterEach, expect, it } from "vitest";
import type { Delivery, QueueDriver } from "./queue-driver.ts";
import { VisibilityLostError } from "./queue-errors.ts";
import { resolveWorkOptions } from "./queue-options.ts";
import { QueueWorker } from "./queue-worker.ts";

/** A driver holding one message; `held = false` makes every renewal report the hold lost. */
class OneMessageDriver implements Pick<QueueDriver, keyof QueueDriver> {
  readonly engine = "embedded" as const;
  held = true;
  readonly completed: string[] = [];
  readonly released: string[] = [];
  #pending: Delivery[] = [
    {
      message: { id: "m1", queue: "q", payload: {}, attempt: 1, createdAt: "2026-01-15T09:30:00Z" },
      token: "t1",
      visibilityMs: 300, // renewed every 100 ms, checked every 200 ms
      retry: { limit: 0, delayMs: 0, backoff: false },
    },
  ];
  async insert() {
    return new Set<string>();
  }
  async claim(_q: string, max: number) {
    return this.#pending.splice(0, max);
  }
  async complete(_q: string, ds: readonly Delivery[]) {
    this.completed.push(...ds.map((d) => d.message.id));
  }
  async fail() {}
  async extend(_q: string, ds: readonly Delivery[]) {
    return new Set(this.held ? ds.map((d) => d.message.id) : []);
  }
  async release(_q: string, ds: readonly Delivery[]) {
    this.released.push(...ds.map((d) => d.message.id));
  }
  async maintain() {}
  async stats() {
    return [];
  }
  async getMessage() {
    return null;
  }
  async deadLetters() {
    return [];
  }
  async retryDead() {
    return [];
  }
  async messages() {
    return [];
  }
  async deleteMessages() {
    return [];
  }
  async close() {}
}

const workers: QueueWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop(0)));
});

/** A worker on the one message whose handler runs until `release` is called or it is aborted. */
function start(keepRunningWhenHoldLost: boolean) {
  const driver = new OneMessageDriver();
  const lines: string[] = [];
  const logger = pino({ level: "warn" }, { write: (l: string) => lines.push(l) });
  let release = () => {};
  const handled = new Promise<{ aborted: unknown }>((resolve, reject) => {
    const handler = async (_m: unknown, signal: AbortSignal) => {
      await new Promise<void>((done) => {
        release = done;
        signal.addEventListener("abort", () => done(), { once: true });
      });
      resolve({ aborted: signal.aborted ? signal.reason : undefined });
    };
    const worker = new QueueWorker(
      driver,
      "q",
      resolveWorkOptions({ pollIntervalMs: 10, keepRunningWhenHoldLost }),
      handler,
      logger,
    );
    workers.push(worker);
    worker.start();
    setTimeout(() => reject(new Error("handler did not settle")), 5_000).unref();
  });
  return { driver, lines, handled, release: () => release() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("aborts a handler whose hold is lost, by default", async () => {
  const w = start(false);
  await sleep(50);
  w.driver.held = false;
  const { aborted } = await w.handled;
  expect(aborted).toBeInstanceOf(VisibilityLostError);
  expect(w.lines.join("")).toContain("its handler was aborted");
});

it("lets a handler with its own lease go on when its hold is lost, leaving the outcome to the other delivery", async () => {
  const w = start(true);
  await sleep(50);
  w.driver.held = false;
  await sleep(600); // several renewal rounds find the hold gone
  w.release();
  const { aborted } = await w.handled;
  expect(aborted).toBeUndefined();
  await sleep(50);
  expect(w.driver.completed).toEqual([]);
  expect(w.lines.join("")).toContain("its handler goes on under its lease");
});

it("still aborts a detached handler when the worker stops past its grace, without releasing the message", async () => {
  const w = start(true);
  await sleep(50);
  w.driver.held = false;
  await sleep(400);
  const worker = workers.pop() as QueueWorker;
  await worker.stop(50);
  const { aborted } = await w.handled;
  expect(aborted).toBeDefined();
  expect(w.driver.released).toEqual([]);
});
