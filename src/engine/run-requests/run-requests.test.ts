import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";
import { typed } from "../../infra/db/open-database.ts";
import { type DialectHarness, describeEachDialect } from "../../testing/dialects.ts";
import { openEchoJobQueue } from "../../testing/echo-job-queue.ts";
import type { EngineTables } from "../engine-tables.ts";
import { UsageError } from "../errors.ts";
import { LeaseStore } from "../leases/lease-store.ts";
import { thisProcess } from "../leases/process-owner.ts";
import type { Queue } from "../queue/queue.ts";
import { executeRun } from "../runs/job-runner.ts";
import { RunRepo } from "../runs/run-repo.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { startQueueWorkers } from "../workers/queue-workers.ts";
import { findRequestedRun } from "./find-requested-run.ts";
import { checkRunRequest, requestRun, sendRunRequest } from "./request-run.ts";
import { requestRunFromCli } from "./request-run-from-cli.ts";
import { API_REQUESTER, RUN_QUEUE, RUN_SEND_DEFAULTS, SCHEDULER_REQUESTER } from "./run-request.ts";
import { runRequestHandler } from "./run-request-handler.ts";

const setup = (h: DialectHarness) => openEchoJobQueue(h);

function work(rt: Runtime, queue: Queue) {
  return startQueueWorkers(rt, queue, [runRequestHandler], { work: { pollIntervalMs: 20 } });
}

/** The request's run, as another worker's `running` row (job "j", lease key job:j). */
function startedElsewhere(runs: RunRepo, runId: string): Promise<void> {
  return runs.insertStarted({
    runId,
    jobName: "j",
    jobType: "test.echo",
    startedAt: "2026-01-15T09:30:00.000Z",
    dryRun: false,
    leaseKey: "job:j",
    host: "elsewhere",
    pid: 1,
  });
}

/** Sends job j's request for `runId` again, as a broker redelivers it, and waits until handled. */
async function redeliverAndSettle(queue: Queue, runId: string): Promise<void> {
  const again = await queue.send(
    RUN_QUEUE,
    { job: "j", dryRun: false, limit: null, requestedBy: API_REQUESTER, runId },
    RUN_SEND_DEFAULTS,
  );
  await until(async () =>
    (await queue.getMessage(RUN_QUEUE, again!))?.state === "completed" ? true : undefined,
  );
}

async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 250; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("timed out");
}

/** The ended run of job `j` that ran a request again under a fresh id (not `runId`). */
function rerunOf(runs: RunRepo, runId: string) {
  return until(async () => {
    const all = await runs.list({ jobName: "j" });
    return all.find((r) => r.runId !== runId && r.finishedAt);
  });
}

describeEachDialect("run requests", (h) => {
  it("a requested run is queued under its run id, then recorded under that id by a worker", async () => {
    const { rt, queue, job } = await setup(h);
    const queued = await requestRun(rt, queue, {
      job,
      dryRun: true,
      limit: 2,
      requestedBy: API_REQUESTER,
    });
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
    const queued = await requestRun(rt, queue, { job, requestedBy: API_REQUESTER });
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
    await expect(
      requestRun(rt, queue, { job: { ...job, params: { nope: 1 } }, requestedBy: API_REQUESTER }),
    ).rejects.toThrow(/job j params/);
    expect(await queue.stats()).toEqual([]);
  });

  it("every sender records its request: the CLI's is found under its run id like the API's", async () => {
    const { rt, queue } = await setup(h);
    const queued = await requestRunFromCli(rt, { job: "j", limit: 3 });
    expect(queued).toMatchObject({
      jobName: "j",
      queue: RUN_QUEUE,
      requestedBy: expect.stringMatching(/^cli:.+@.+/),
      dryRun: false,
      limit: 3,
    });
    expect(await findRequestedRun(rt, queue, queued.runId)).toMatchObject({
      status: "queued",
      messageId: queued.messageId,
      limit: 3,
    });
    expect(await queue.getMessage(RUN_QUEUE, queued.messageId)).toMatchObject({
      payload: { job: "j", runId: queued.runId, requestedBy: queued.requestedBy },
    });
  });

  it("the CLI's request is checked once, at request time: unknown job, stale params, bad limit", async () => {
    const { rt, queue } = await setup(h);
    await expect(requestRunFromCli(rt, { job: "nope" })).rejects.toThrow('unknown job "nope"');
    await expect(requestRunFromCli(rt, { job: "j", limit: 0 })).rejects.toThrow(UsageError);
    await typed<EngineTables>(rt.db)
      .updateTable("tm_jobs")
      .set({ params: JSON.stringify({ nope: 1 }) })
      .where("name", "=", "j")
      .execute();
    await expect(requestRunFromCli(rt, { job: "j" })).rejects.toThrow(/job j params/);
    expect(await queue.stats()).toEqual([]);
  });

  it("a duplicate under a singleton key is dropped and leaves no request behind", async () => {
    const { rt, queue, job } = await setup(h);
    const checked = await checkRunRequest(rt, { job, requestedBy: SCHEDULER_REQUESTER });
    expect(checked.leaseKey).toBe("job:j");
    const first = await sendRunRequest(rt, queue, checked, { singletonKey: "schedule:j" });
    expect(first).not.toBeNull();
    expect(await sendRunRequest(rt, queue, checked, { singletonKey: "schedule:j" })).toBeNull();
    const stats = await queue.stats();
    expect(stats.find((s) => s.queue === RUN_QUEUE)?.queued).toBe(1);
    expect(await findRequestedRun(rt, queue, first!.runId)).toMatchObject({ status: "queued" });
  });
});

describeEachDialect("run requests: exactly-once execution", (h) => {
  it("a redelivered request whose run already ended is acknowledged, not run again", async () => {
    const { rt, queue, job } = await setup(h);
    const queued = await requestRun(rt, queue, { job, requestedBy: API_REQUESTER });
    await work(rt, queue);
    await until(() =>
      new RunRepo(rt.db).get(queued.runId).then((r) => (r?.finishedAt ? r : undefined)),
    );
    // The same message again, as a broker redelivers one whose acknowledgement was lost.
    await redeliverAndSettle(queue, queued.runId);
    expect((await new RunRepo(rt.db).list({ jobName: "j" })).map((r) => r.runId)).toEqual([
      queued.runId,
    ]);
  });

  it("a redelivery while the run is running is dropped; one interrupted by a stop runs again", async () => {
    const { rt, queue, job } = await setup(h);
    const queued = await requestRun(rt, queue, { job, requestedBy: API_REQUESTER });
    const runs = new RunRepo(rt.db);
    // The run is in progress elsewhere (its row says running).
    await startedElsewhere(runs, queued.runId);
    // …and holds its live lease.
    expect(await rt.leases.tryAcquire("job:j", queued.runId, 600_000)).toBeDefined();
    await work(rt, queue);
    await until(async () =>
      (await queue.getMessage(RUN_QUEUE, queued.messageId))?.state === "completed"
        ? true
        : undefined,
    );
    expect((await runs.list({ jobName: "j" })).length).toBe(1);

    // That run was interrupted by a worker's stop: its redelivery runs the job again.
    await runs.finish(queued.runId, {
      status: "failed",
      finishedAt: "2026-01-15T09:31:00.000Z",
      summary: {},
      error: "interrupted",
    });
    await rt.leases.release("job:j", queued.runId);
    const { noteInterrupted } = await import("./exactly-once.ts");
    await noteInterrupted(rt, queued.runId);
    await queue.send(
      RUN_QUEUE,
      { job: "j", dryRun: false, limit: null, requestedBy: API_REQUESTER, runId: queued.runId },
      RUN_SEND_DEFAULTS,
    );
    const rerun = await rerunOf(runs, queued.runId);
    expect(rerun.status).toBe("succeeded");
  });

  it("a request whose worker died mid-run runs again once when redelivered, then never again", async () => {
    const { rt, queue, job } = await setup(h);
    const queued = await requestRun(rt, queue, { job, requestedBy: API_REQUESTER });
    const runs = new RunRepo(rt.db);
    // A worker started the run and was killed: the row says running, no live lease is left.
    await startedElsewhere(runs, queued.runId);
    await work(rt, queue);
    const rerun = await rerunOf(runs, queued.runId);
    expect(rerun.status).toBe("succeeded");
    expect(await runs.get(queued.runId)).toMatchObject({ status: "abandoned" });

    // Delivered yet again (the rerun's acknowledgement was lost too): not a third run.
    await redeliverAndSettle(queue, queued.runId);
    expect(await runs.list({ jobName: "j" })).toHaveLength(2);
  });

  it("a redelivery whose run's worker died on this machine runs again, though its lease has not expired", async () => {
    const { rt, queue, job } = await setup(h);
    const queued = await requestRun(rt, queue, { job, requestedBy: API_REQUESTER });
    const runs = new RunRepo(rt.db);
    // A worker of this machine started the run and was SIGKILLed: its lease (a long TTL) is
    // still unexpired, but its process is gone.
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    const theirs = new LeaseStore(rt.db, rt.clock, { owner: { ...thisProcess(), pid: dead } });
    expect(await theirs.tryAcquire("job:j", queued.runId, 3_600_000)).toBeDefined();
    await startedElsewhere(runs, queued.runId);
    await work(rt, queue);
    const rerun = await rerunOf(runs, queued.runId);
    expect(rerun.status).toBe("succeeded");
    expect(await runs.get(queued.runId)).toMatchObject({ status: "abandoned" });
    expect((await runs.get(queued.runId))?.error).toMatch(/process died/);
  });
});
