import { expect, it, onTestFinished } from "vitest";
import { z } from "zod";
import { describeEachDialect } from "../../testing/dialects.ts";
import { waitFor } from "../../testing/queue/wait-for.ts";
import { testPipeline } from "../../testing/test-pipeline.ts";
import { openTestRuntime } from "../../testing/test-runtime.ts";
import { UsageError } from "../errors.ts";
import { openQueue } from "../queue/open-queue.ts";
import { pgBossOf } from "../queue/pg-boss/pg-boss-of.ts";
import { definePipeline } from "../registry/pipeline-definition.ts";
import { sendBatchTo, sendTo } from "../registry/queue-handler-definition.ts";
import { Registry } from "../registry/registry.ts";
import {
  defineEngineQueueHandler as defineQueueHandler,
  type EngineQueueHandlerContext as QueueHandlerContext,
} from "../run-requests/engine-queue-handler.ts";
import { RUN_QUEUE } from "../run-requests/run-request.ts";
import { collectQueueHandlers, startQueueWorkers } from "./queue-workers.ts";

const seen: Array<{ payload: unknown; ctx: QueueHandlerContext }> = [];

const item = defineQueueHandler({
  name: "fan.item",
  description: "handles one item",
  payload: z.object({ n: z.number().int(), tag: z.string().default("none") }).strict(),
  work: { concurrency: 2, pollIntervalMs: 50 },
  send: { retryLimit: 1, retryDelaySeconds: 0 },
  async handle(ctx, payload) {
    seen.push({ payload, ctx });
  },
});

const batch = defineQueueHandler({
  name: "fan.batch",
  description: "fans a batch out into items",
  payload: z.object({ count: z.number().int().positive() }),
  work: { pollIntervalMs: 50 },
  async handle(ctx, payload) {
    await sendBatchTo(
      ctx.queue,
      item,
      Array.from({ length: payload.count }, (_, n) => ({ payload: { n, tag: "fanned" } })),
    );
  },
});

const fanPipeline = definePipeline({
  name: "fan",
  description: "test pipeline with queue handlers",
  jobTypes: [],
  queueHandlers: [batch, item],
});

describeEachDialect("queue handlers of pipelines", (h) => {
  it("collects the engine's run handler first, then each pipeline's", () => {
    const names = collectQueueHandlers(new Registry([testPipeline, fanPipeline])).map(
      (x) => x.name,
    );
    expect(names).toEqual([RUN_QUEUE, "fan.batch", "fan.item"]);
  });

  it("refuses a handler outside its pipeline's namespace, or registered twice", () => {
    const stray = definePipeline({ ...fanPipeline, name: "other", queueHandlers: [item] });
    expect(() => collectQueueHandlers(new Registry([stray]))).toThrow(
      "queue handler fan.item of pipeline other must be named other.<name> or other-<name>",
    );
    const twice = definePipeline({ ...fanPipeline, queueHandlers: [item, item] });
    expect(() => collectQueueHandlers(new Registry([twice]))).toThrow("fan.item registered twice");
  });

  it("a handler gets its parsed payload and the services, and can fan out to another queue", async () => {
    seen.length = 0;
    const runtime = await openTestRuntime(h, { registry: new Registry([fanPipeline]) });
    const queue = await openQueue(runtime);
    onTestFinished(() => queue.close());
    expect(pgBossOf(queue)).toBeUndefined();
    const consumed = await startQueueWorkers(runtime, queue);
    expect(consumed).toEqual([RUN_QUEUE, "fan.batch", "fan.item"]);
    await sendTo(queue, batch, { count: 5 });
    await sendTo(queue, item, { n: 99 });
    await waitFor("6 items", () => seen.length >= 6);
    expect(seen.map((s) => s.payload)).toEqual(
      expect.arrayContaining([
        { n: 99, tag: "none" },
        { n: 0, tag: "fanned" },
        { n: 4, tag: "fanned" },
      ]),
    );
    const { ctx } = seen[0]!;
    expect(ctx.db).toBe(runtime.db);
    expect(ctx.queue).toBe(queue);
    expect(ctx.runtime).toBe(runtime);
    expect(ctx.message).toMatchObject({ queue: "fan.item", attempt: 1 });
    expect(ctx.signal.aborted).toBe(false);
  });

  it("an invalid payload is dead-lettered at once with the validation error", async () => {
    const runtime = await openTestRuntime(h, { registry: new Registry([fanPipeline]) });
    const queue = await openQueue(runtime);
    onTestFinished(() => queue.close());
    await startQueueWorkers(runtime, queue, undefined, { only: ["fan.item"] });
    // Sent around sendTo (which would refuse it), as an older sender might.
    const id = await queue.send("fan.item", { n: "seven" }, { retryLimit: 5 });
    const dead = await waitFor("dead", async () => {
      const m = await queue.getMessage("fan.item", id!);
      return m?.state === "dead" && m;
    });
    expect(dead.attempts).toBe(1);
    expect(dead.lastError).toMatch(
      /^queue fan\.item message .+: n: .*expected number.* \(got "seven"\)$/,
    );
  });

  it("sendTo validates the payload before sending; an unknown queue to consume is refused", async () => {
    const runtime = await openTestRuntime(h, { registry: new Registry([fanPipeline]) });
    const queue = await openQueue(runtime);
    onTestFinished(() => queue.close());
    await expect(sendTo(queue, item, { n: 1.5 } as never)).rejects.toThrow(UsageError);
    await expect(sendTo(queue, item, { n: 1.5 } as never)).rejects.toThrow(
      /queue fan\.item payload: n:/,
    );
    expect(await queue.stats()).toEqual([]);
    await expect(
      startQueueWorkers(runtime, queue, undefined, { only: ["fan.nope"] }),
    ).rejects.toThrow(/unknown queue\(s\) fan\.nope/);
  });
});
