import { describe, expect, it } from "vitest";
import { ParseThreads } from "../../../src/pipelines/snapshots/stages/parse/parse-threads.ts";

/** A stand-in for a pool of taken threads whose stop the test finishes by hand. */
function takenPool() {
  let finish!: (err?: Error) => void;
  const closing = new Promise<void>((resolve, reject) => {
    finish = (err) => (err ? reject(err) : resolve());
  });
  return { pool: { close: () => closing }, finish };
}

describe("parse threads stopped in the background", () => {
  it("stopSoon returns at once; close() waits until what it began to stop has stopped", async () => {
    const threads = new ParseThreads(2, 2);
    const { pool, finish } = takenPool();
    threads.stopSoon(pool);
    let closed = false;
    const closing = threads.close().then(() => {
      closed = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(closed).toBe(false);
    finish();
    await closing;
    expect(closed).toBe(true);
  });

  it("a stop that fails is no unhandled rejection, and close() reports it", async () => {
    const threads = new ParseThreads(2, 2);
    const { pool, finish } = takenPool();
    threads.stopSoon(pool);
    finish(new Error("worker would not stop"));
    // Let the rejection settle before anyone awaits it (vitest fails on unhandled ones).
    await new Promise((r) => setTimeout(r, 20));
    await expect(threads.close()).rejects.toThrow("worker would not stop");
  });
});
