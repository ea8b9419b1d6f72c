import { expect, it, onTestFinished } from "vitest";
import { typed } from "../../infra/db/open-database.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { ManualClock } from "../../testing/manual-clock.ts";
import { openTestRuntime } from "../../testing/test-runtime.ts";
import { JobService } from "../jobs/job-service.ts";
import { openQueue } from "../queue/open-queue.ts";
import { findRequestedRun } from "../run-requests/find-requested-run.ts";
import { RUN_QUEUE, SCHEDULER_REQUESTER } from "../run-requests/run-request.ts";
import type { RunRequestsTable } from "../run-requests/run-request-repo.ts";
import { queueDispatcher } from "./dispatchers.ts";
import type { Fire } from "./fire.ts";

describeEachDialect("queue dispatcher", (h) => {
  it("a fire queues one run request under a run id; a held lease or a queued one skips it", async () => {
    const clock = new ManualClock("2026-01-15T09:30:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    const queue = await openQueue(rt);
    onTestFinished(() => queue.close());
    const job = await new JobService(rt.db, rt.registry, clock).add({
      name: "j",
      type: "test.echo",
      params: { message: "m" },
      schedule: "*/5 * * * *",
      timezone: "UTC",
      enabled: true,
    });
    const dispatch = queueDispatcher(rt, queue);
    const signal = new AbortController().signal;
    const fire = (over: Partial<Fire> = {}): Fire => ({
      job,
      occurrence: new Date("2026-01-15T09:30:00.000Z"),
      fireAt: new Date("2026-01-15T09:30:00.000Z"),
      kind: "on-time",
      ...over,
    });

    await rt.leases.tryAcquire("job:j", "someone-else", 60_000);
    expect(await dispatch(fire(), signal)).toBe("skipped-running");
    expect(await queue.stats()).toEqual([]);
    await rt.leases.release("job:j", "someone-else");

    // Jitter still ahead (pg-boss mode): the request waits in the queue until fireAt.
    expect(await dispatch(fire({ fireAt: new Date("2026-01-15T09:30:07.500Z") }), signal)).toBe(
      "queued",
    );
    expect(await dispatch(fire(), signal)).toBe("skipped-queued");
    const [stats] = await queue.stats();
    expect(stats).toMatchObject({ queue: RUN_QUEUE, queued: 1, active: 0 });
    // The request is recorded under the run id its message carries.
    const [row] = await typed<{ tm_run_requests: RunRequestsTable }>(rt.db)
      .selectFrom("tm_run_requests")
      .selectAll()
      .execute();
    expect(row).toMatchObject({ job_name: "j", requested_by: SCHEDULER_REQUESTER });
    expect(await queue.getMessage(RUN_QUEUE, row!.message_id)).toMatchObject({
      state: "queued",
      payload: { job: "j", requestedBy: SCHEDULER_REQUESTER, runId: row!.run_id },
    });
    expect(await findRequestedRun(rt, queue, row!.run_id)).toMatchObject({ status: "queued" });
  });
});
