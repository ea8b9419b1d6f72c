import { expect, it, onTestFinished } from "vitest";
import { UsageError } from "../../engine/errors.ts";
import { JobService } from "../../engine/jobs/job-service.ts";
import { openQueue } from "../../engine/queue/open-queue.ts";
import type { Queue } from "../../engine/queue/queue.ts";
import { startQueueWorkers } from "../../engine/queue/queue-workers.ts";
import { RUN_QUEUE, RUN_SEND_DEFAULTS } from "../../engine/queue/run-queue.ts";
import { runQueueHandler } from "../../engine/queue/run-queue-handler.ts";
import { executeRun } from "../../engine/runs/job-runner.ts";
import { RunRepo } from "../../engine/runs/run-repo.ts";
import type { Runtime } from "../../engine/runtime/runtime.ts";
import { SCHEDULER_REQUESTER } from "../../engine/scheduler/dispatchers.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { openTestRuntime } from "../../testing/test-runtime.ts";
import { findRequestedRun, requestRun } from "./request-run.ts";

async function setup(h: Parameters<Parameters<typeof describeEachDialect>[1]>[0]) {
  const rt = await openTestRuntime(h);
  const queue = await openQueue(rt);
  onTestFinished(() => queue.close());
  const jobs = new JobService(rt.db, rt.registry, rt.clock);
  await jobs.add({
    name: "j",
    type: "test.echo",
    params: { message: "m" },
    schedule: null,
    timezone: "UTC",
    enabled: true,
  });
  return { rt, queue, job: await jobs.get("j") };
}

function work(rt: Runtime, queue: Queue) {
  return startQueueWorkers(rt, queue, [runQueueHandler], { work: { pollIntervalMs: 20 } });
}

async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 250; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("timed out");
}

describeEachDialect("run requests", (h) => {
  it("a requested run is queued under its run id, then recorded under that id by a worker", async () => {
    const { rt, queue, job } = await setup(h);
    const queued = await requestRun(rt, queue, job, { dryRun: true, limit: 2 });
    expect(queued.runId).toMatch(/^j_\d{8}T\d{6}Z_[0-9a-f]{6}$/);
    expect(await findRequestedRun(rt, queue, queued.runId)).toMatchObject({
      runId: queued.runId,
      jobName: "j",
      status: "queued",
      messageId: queued.messageId,
      dryRun: true,
      limit: 2,
      attempts: 0,
      error: null,
    });
    await work(rt, queue);
    const run = await until(() =>
      new RunRepo(rt.db).get(queued.runId).then((r) => (r?.finishedAt ? r : undefined)),
    );
    expect(run).toMatchObject({ status: "succeeded", dryRun: true, summary: { limit: 2 } });
    // The worker records the run before it completes the message: once it has, the request
    // is no longer reported (the API answers from tm_runs from the run's start anyway).
    await until(async () =>
      (await findRequestedRun(rt, queue, queued.runId)) === undefined ? true : undefined,
    );
    expect(await findRequestedRun(rt, queue, "j_20260101T000000Z_000000")).toBeUndefined();
  });

  it("an API request for a running job waits and is retried; a scheduled one is skipped", async () => {
    const { rt, queue, job } = await setup(h);
    await rt.leases.tryAcquire("job:j", "someone-else", 60_000);
    const queued = await requestRun(rt, queue, job, {});
    await queue.send(
      RUN_QUEUE,
      { job: "j", dryRun: false, limit: null, requestedBy: SCHEDULER_REQUESTER },
      RUN_SEND_DEFAULTS,
    );
    await work(rt, queue);
    const retrying = await until(async () => {
      const r = await findRequestedRun(rt, queue, queued.runId);
      return r?.error ? r : undefined;
    });
    expect(retrying).toMatchObject({ status: "queued", attempts: 1 });
    expect(retrying.error).toContain("job j is already running");
    // The scheduled request completed without a run and without a retry.
    await until(async () => {
      const stats = await queue.stats();
      const run = stats.find((s) => s.queue === RUN_QUEUE);
      return run && run.active === 0 && run.queued === 1 ? run : undefined;
    });
    expect(await new RunRepo(rt.db).list({ jobName: "j" })).toEqual([]);
  });

  it("a run id already used (redelivered request) gives the run a fresh id; a foreign one is refused", async () => {
    const { rt } = await setup(h);
    const first = await executeRun(rt, {
      jobName: "j",
      jobType: "test.echo",
      params: { message: "m" },
      runId: "j_20260115T093000Z_abcdef",
    });
    expect(first.runId).toBe("j_20260115T093000Z_abcdef");
    const again = await executeRun(rt, {
      jobName: "j",
      jobType: "test.echo",
      params: { message: "m" },
      runId: "j_20260115T093000Z_abcdef",
    });
    expect(again.runId).not.toBe(first.runId);
    await expect(
      executeRun(rt, {
        jobName: "j",
        jobType: "test.echo",
        params: { message: "m" },
        runId: "k_20260115T093000Z_abcdef",
      }),
    ).rejects.toThrow(UsageError);
  });

  it("a job whose stored params no longer validate is refused at request time", async () => {
    const { rt, queue, job } = await setup(h);
    await expect(requestRun(rt, queue, { ...job, params: { nope: 1 } }, {})).rejects.toThrow(
      /job j params/,
    );
    expect(await queue.stats()).toEqual([]);
  });
});
