import { spawnSync } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Worker } from "node:worker_threads";
import { WarmThreads } from "tidemark/kit";
import { afterEach, describe, expect, it } from "vitest";

const fixtures = new URL("../fixtures/threads/", import.meta.url).href;
const from = new URL("any.ts", fixtures).href;
const taken: Worker[] = [];
afterEach(async () => {
  await Promise.all(taken.splice(0).map((w) => w.terminate()));
});

async function ask(w: Worker, n: number): Promise<unknown> {
  w.postMessage(n);
  const [answer] = await once(w, "message");
  return answer;
}

describe("WarmThreads", () => {
  it("starts threads ahead and hands them out, then starts new ones when none is left", async () => {
    const threads = new WarmThreads(from, "echo-worker", {}).warm(2);
    expect(threads.idle).toBe(2);
    const first = threads.take();
    const second = threads.take();
    expect(threads.idle).toBe(0);
    const third = threads.take();
    taken.push(first, second, third);
    expect(new Set([first, second, third]).size).toBe(3);
    expect(await ask(first, 1)).toBe(2);
    expect(await ask(second, 2)).toBe(4);
    expect(await ask(third, 3)).toBe(6);
    await threads.close();
  });

  it("close() stops only the threads nobody took, and later warm() starts nothing", async () => {
    const threads = new WarmThreads(from, "echo-worker", {}).warm(2);
    const mine = threads.take();
    taken.push(mine);
    await threads.close();
    expect(threads.idle).toBe(0);
    expect(await ask(mine, 21)).toBe(42);
    threads.warm(2);
    expect(threads.idle).toBe(0);
  });

  it("takes back a thread given to it, for the next take(); once closed, a given thread is stopped", async () => {
    const threads = new WarmThreads(from, "echo-worker", {});
    const w = threads.take();
    expect(await ask(w, 5)).toBe(10);
    threads.give(w);
    expect(threads.idle).toBe(1);
    const again = threads.take();
    taken.push(again);
    expect(again).toBe(w);
    expect(await ask(again, 7)).toBe(14);
    await threads.close();
    const late = new WarmThreads(from, "echo-worker", {}).take();
    const stopped = once(late, "exit");
    const closed = new WarmThreads(from, "echo-worker", {});
    await closed.close();
    closed.give(late);
    await stopped;
    expect(closed.idle).toBe(0);
  });

  it("drops a warm thread that failed to start: take() starts a new one, whose failure the taker sees", async () => {
    const threads = new WarmThreads(from, "no-such-worker", {}).warm(1);
    expect(threads.idle).toBe(1);
    for (let i = 0; i < 100 && threads.idle > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(threads.idle).toBe(0);
    const w = threads.take();
    taken.push(w);
    const [err] = await once(w, "error");
    expect(String(err)).toMatch(/no-such-worker/);
  });

  it("an idle warm thread does not keep the process alive", () => {
    const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "warm-threads-exit.ts");
    const run = spawnSync(process.execPath, ["--import", "tsx", script], {
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe("warm 2");
  });
});
