// Long work off a terminal reports progress: a line every few seconds, not silence.
import { Writable } from "node:stream";
import pino from "pino";
import { expect, it } from "vitest";
import { z } from "zod";
import { openQueue } from "../../src/engine/queue/open-queue.ts";
import { definePipeline } from "../../src/engine/registry/pipeline-definition.ts";
import { defineQueueHandler, sendTo } from "../../src/engine/registry/queue-handler-definition.ts";
import { Registry } from "../../src/engine/registry/registry.ts";
import { createProgress } from "../../src/infra/logging/progress.ts";
import { drainQueues } from "../../src/server/processes/worker-drain.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { testPipeline } from "../../src/testing/test-pipeline.ts";
import { openTestRuntime } from "../../src/testing/test-runtime.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("a run's progress off a terminal is a line every interval while the count moves", async () => {
  const lines: string[] = [];
  const stream = {
    isTTY: false,
    write: (t: string) => lines.push(t),
  } as unknown as NodeJS.WriteStream;
  const p = createProgress("rakuten.item", 51, stream, 40);
  p.tick(10, { changed: 10 });
  await sleep(100);
  p.tick(5, { changed: 15 });
  await sleep(100);
  const quiet = lines.length;
  await sleep(100);
  p.stop();
  expect(lines[0]).toBe("rakuten.item: 10/51 (19%)  changed 10\n");
  expect(lines).toContain("rakuten.item: 15/51 (29%)  changed 15\n");
  // No new line while nothing moved, none after stop.
  expect(lines.length).toBe(quiet);
});

const slow = defineQueueHandler({
  name: "slow.step",
  description: "takes 60 ms",
  payload: z.strictObject({ n: z.number().int() }),
  work: { concurrency: 1, pollIntervalMs: 20 },
  async handle() {
    await sleep(60);
  },
});

describeEachDialect("worker --drain", (h) => {
  it("logs its counts at info every interval while it drains", async () => {
    const registry = new Registry([
      testPipeline,
      definePipeline({ name: "slow", description: "slow", jobTypes: [], queueHandlers: [slow] }),
    ]);
    const base = await openTestRuntime(h, { registry });
    const logs: Array<{ msg: string; handled?: number }> = [];
    const sink = new Writable({
      write(chunk, _e, cb) {
        for (const l of chunk.toString().split("\n")) if (l.trim()) logs.push(JSON.parse(l));
        cb();
      },
    });
    const runtime = { ...base, logger: pino({ level: "info" }, sink) };
    const queue = await openQueue(runtime);
    for (let n = 0; n < 12; n++) await sendTo(queue, slow, { n });
    await queue.close();
    const report = await drainQueues(runtime, {
      queues: ["slow.step"],
      graceMs: 1_000,
      pollMs: 20,
      progressMs: 150,
    });
    expect(report.handled).toBe(12);
    const progress = logs.filter((l) => l.msg === "draining");
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.every((l) => (l.handled ?? 0) > 0 && (l.handled ?? 0) <= 12)).toBe(true);
  });
});
