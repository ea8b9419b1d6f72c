import { expect, it } from "vitest";
import { typed } from "../../infra/db/open-database.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { ManualClock } from "../../testing/manual-clock.ts";
import { echoJobType, type TestPipelineTables, testPipeline } from "../../testing/test-pipeline.ts";
import { openTestRuntime } from "../../testing/test-runtime.ts";
import { AlreadyRunningError, UsageError } from "../errors.ts";
import { defineJobType, definePipeline } from "../registry/pipeline-definition.ts";
import { Registry } from "../registry/registry.ts";
import { executeRun } from "./job-runner.ts";
import { RUN_ID_PATTERN } from "./run-id.ts";
import { RunRepo } from "./run-repo.ts";

describeEachDialect("job runner", (h) => {
  it("records a successful run with the context a job receives", async () => {
    const clock = new ManualClock("2026-03-04T05:06:07.890Z");
    const rt = await openTestRuntime(h, { clock });
    const report = await executeRun(rt, {
      jobName: "hello",
      jobType: "test.echo",
      params: { message: "hi" },
      limit: 7,
    });
    expect(report.status).toBe("succeeded");
    expect(report.runId).toMatch(RUN_ID_PATTERN);
    expect(report.runId).toMatch(/^hello_20260304T050607Z_[0-9a-f]{6}$/);
    expect(report.summary).toMatchObject({
      message: "hi",
      job_start_at: "2026-03-04T05:06:07.000Z",
      day_start: "2026-03-04T00:00:00.000Z",
      env: "dev",
      dry_run: false,
      limit: 7,
    });
    const stored = await new RunRepo(rt.db).get(report.runId);
    expect(stored).toMatchObject({
      status: "succeeded",
      jobName: "hello",
      jobType: "test.echo",
      startedAt: "2026-03-04T05:06:07.890Z",
      error: null,
      summary: report.summary,
    });
    expect(await rt.leases.get("job:hello")).toBeUndefined();
  });

  it("a job that throws is recorded as failed with its error, and the lease is released", async () => {
    const rt = await openTestRuntime(h);
    const report = await executeRun(rt, {
      jobName: "boom",
      jobType: "test.echo",
      params: { message: "x", fail: true },
    });
    expect(report.status).toBe("failed");
    expect(report.error).toBe("echo failed: x");
    expect((await new RunRepo(rt.db).get(report.runId))?.error).toBe("echo failed: x");
    expect(await rt.leases.get("job:boom")).toBeUndefined();
  });

  it("a job may report skipped", async () => {
    const rt = await openTestRuntime(h);
    const report = await executeRun(rt, {
      jobName: "s",
      jobType: "test.echo",
      params: { message: "x", skip: true },
    });
    expect(report.status).toBe("skipped");
    expect(report.summary).toEqual({ skip_reason: "asked to skip" });
    expect((await new RunRepo(rt.db).get(report.runId))?.summary).toEqual({
      skip_reason: "asked to skip",
    });
  });

  it("dry-run reaches the job, which then writes nothing", async () => {
    const rt = await openTestRuntime(h);
    await executeRun(rt, {
      jobName: "d",
      jobType: "test.echo",
      params: { message: "x" },
      dryRun: true,
    });
    const notes = await typed<TestPipelineTables>(rt.db)
      .selectFrom("lab.note")
      .selectAll()
      .execute();
    expect(notes).toEqual([]);
    expect((await new RunRepo(rt.db).list())[0]?.dryRun).toBe(true);
  });

  it("bad params are refused before anything is recorded", async () => {
    const rt = await openTestRuntime(h);
    await expect(
      executeRun(rt, { jobName: "p", jobType: "test.echo", params: { message: 5 } }),
    ).rejects.toThrow(UsageError);
    await expect(
      executeRun(rt, { jobName: "p", jobType: "nope.nope", params: {} }),
    ).rejects.toThrow(/unknown job type "nope.nope"; known types: test.echo/);
    expect(await new RunRepo(rt.db).list()).toEqual([]);
  });

  it("a job refused because another job holds their shared lease names the lease, not itself as running", async () => {
    const shared = defineJobType({
      ...echoJobType,
      name: "test.shared",
      leaseKey: () => "lab:shared",
    });
    const registry = new Registry([definePipeline({ ...testPipeline, jobTypes: [shared] })]);
    const rt = await openTestRuntime(h, { registry });
    expect(
      await rt.leases.tryAcquire("lab:shared", "other_20260101T000000Z_abcdef", 60_000),
    ).toBeTruthy();
    const refused = executeRun(rt, {
      jobName: "k",
      jobType: "test.shared",
      params: { message: "x" },
    });
    await expect(refused).rejects.toThrow(AlreadyRunningError);
    await expect(refused).rejects.toThrow(
      "job k cannot start: lab:shared, which it shares with other jobs, is already running (held by other_20260101T000000Z_abcdef)",
    );
  });

  it("a second concurrent run of the same job is refused as already running", async () => {
    const rt = await openTestRuntime(h);
    const first = executeRun(rt, {
      jobName: "slow",
      jobType: "test.echo",
      params: { message: "x", sleep_ms: 400 },
    });
    await new Promise((r) => setTimeout(r, 100));
    const second = executeRun(rt, {
      jobName: "slow",
      jobType: "test.echo",
      params: { message: "y" },
    });
    await expect(second).rejects.toThrow(AlreadyRunningError);
    await expect(second).rejects.toThrow(/job slow is already running \(held by slow_/);
    expect((await first).status).toBe("succeeded");
    // A different job runs alongside.
    const other = await executeRun(rt, {
      jobName: "other",
      jobType: "test.echo",
      params: { message: "z" },
    });
    expect(other.status).toBe("succeeded");
  });

  it("aborting the signal fails the run cleanly", async () => {
    const rt = await openTestRuntime(h);
    const controller = new AbortController();
    const running = executeRun(rt, {
      jobName: "abort",
      jobType: "test.echo",
      params: { message: "x", sleep_ms: 5_000 },
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("interrupted by SIGTERM")), 50);
    const report = await running;
    expect(report.status).toBe("failed");
    expect(report.error).toBe("interrupted by SIGTERM");
    expect(await rt.leases.get("job:abort")).toBeUndefined();
  });
});
