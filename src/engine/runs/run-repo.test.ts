import { expect, it } from "vitest";
import { describeEachDialect } from "../../testing/dialects.ts";
import { ManualClock } from "../../testing/manual-clock.ts";
import { openTestRuntime } from "../../testing/test-runtime.ts";
import { RunRepo } from "./run-repo.ts";

describeEachDialect("abandoned runs", (h) => {
  it("a running run is marked abandoned only once its lease has expired", async () => {
    const clock = new ManualClock("2026-05-01T10:00:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    const runs = new RunRepo(rt.db);
    // What a process leaves behind when it is killed mid-run: a running row and its lease.
    await rt.leases.tryAcquire("job:dead", "dead_20260501T100000Z_abcdef", 60_000);
    await runs.insertStarted({
      runId: "dead_20260501T100000Z_abcdef",
      jobName: "dead",
      jobType: "test.echo",
      startedAt: clock.now().toISOString(),
      dryRun: false,
      leaseKey: "job:dead",
      host: "h",
      pid: 1,
    });
    clock.advance(59_000);
    expect(await runs.markAbandoned(clock.now().toISOString())).toEqual([]);
    clock.advance(1_000);
    expect(await runs.markAbandoned(clock.now().toISOString())).toEqual([
      "dead_20260501T100000Z_abcdef",
    ]);
    const run = await runs.get("dead_20260501T100000Z_abcdef");
    expect(run?.status).toBe("abandoned");
    expect(run?.finishedAt).toBe("2026-05-01T10:01:00.000Z");
    // A late finish from a zombie does not resurrect it.
    await runs.finish(run!.runId, {
      status: "succeeded",
      finishedAt: clock.now().toISOString(),
      summary: {},
      error: null,
    });
    expect((await runs.get(run!.runId))?.status).toBe("abandoned");
  });

  it("lists newest first with job, status and limit filters", async () => {
    const clock = new ManualClock("2026-05-01T10:00:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    const runs = new RunRepo(rt.db);
    for (const [i, job, status] of [
      [0, "a", "succeeded"],
      [1, "b", "failed"],
      [2, "a", "failed"],
    ] as const) {
      await runs.insertFinished({
        runId: `${job}_${i}`,
        jobName: job,
        jobType: "test.echo",
        status,
        startedAt: new Date(Date.UTC(2026, 4, 1, 10, i)).toISOString(),
        finishedAt: null,
        summary: { i },
        error: null,
        dryRun: false,
        leaseKey: `job:${job}`,
        host: "h",
        pid: 1,
      });
    }
    expect((await runs.list()).map((r) => r.runId)).toEqual(["a_2", "b_1", "a_0"]);
    expect((await runs.list({ jobName: "a" })).map((r) => r.runId)).toEqual(["a_2", "a_0"]);
    expect((await runs.list({ status: "failed", limit: 1 })).map((r) => r.runId)).toEqual(["a_2"]);
    expect(await runs.lastStartedAt("a")).toBe("2026-05-01T10:02:00.000Z");
    expect(await runs.lastStartedAt("zzz")).toBeUndefined();
  });
});
