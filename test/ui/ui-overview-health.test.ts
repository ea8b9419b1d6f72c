// The overview answers "is everything healthy": a strip of each job's recent runs, counters
// over 24 h and 7 d, the queue's depth, and a banner naming what looks stuck.
import { expect, it, onTestFinished } from "vitest";
import { JobService } from "../../src/engine/jobs/job-service.ts";
import { openQueue } from "../../src/engine/queue/open-queue.ts";
import { RunRepo } from "../../src/engine/runs/run-repo.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import { openTestRuntime } from "../../src/testing/test-runtime.ts";
import { openUi, storedRun } from "./ui-app.ts";

const NOW = "2026-01-15T09:30:00.000Z";
const hoursAgo = (h: number) => new Date(Date.parse(NOW) - h * 3600_000).toISOString();

describeEachDialect("dashboard overview health", (h) => {
  it("a strip of recent runs per job, 24 h and 7 d counters, late jobs and unserved queues in a banner", async () => {
    const clock = new ManualClock(hoursAgo(5));
    const runtime = await openTestRuntime(h, { clock });
    const jobs = new JobService(runtime.db, runtime.registry, runtime.clock);
    const add = (name: string, schedule: string | null) =>
      jobs.add({
        name,
        type: "test.echo",
        params: { message: "m" },
        schedule,
        timezone: "UTC",
        enabled: true,
      });
    await add("hourly", "0 * * * *");
    await add("manual", null);
    clock.set(NOW);
    const repo = new RunRepo(runtime.db);
    for (const [i, age] of [72, 30, 3].entries()) {
      const status = i === 1 ? "failed" : "succeeded";
      await repo.insertFinished(
        storedRun(
          "hourly",
          `h_${i}`,
          { startedAt: hoursAgo(age), finishedAt: hoursAgo(age) },
          { status, error: status === "failed" ? "boom" : null },
        ),
      );
    }
    await repo.insertFinished(
      storedRun("manual", "m_1", { startedAt: hoursAgo(1), finishedAt: hoursAgo(1) }),
    );
    // A command's runs without a stored job are listed too, after the stored jobs.
    await repo.insertFinished(
      storedRun("rakuten-item", "r_1", { startedAt: hoursAgo(2), finishedAt: hoursAgo(2) }),
    );
    const queue = await openQueue(runtime);
    onTestFinished(() => queue.close());
    await queue.send("tidemark.run", { job: "x" });
    clock.advance(10 * 60_000);

    const { get } = await openUi(runtime, { queue });
    const { text } = await get("/ui/fragments/overview");
    // Every job, scheduled or not, each with one linked cell per run.
    expect(text).toContain('data-job="manual"');
    expect(text).toContain('class="cell cell-failed" href="/ui/runs/h_1"');
    expect([...text.matchAll(/class="cell cell-/g)]).toHaveLength(5);
    expect(text).toMatch(/data-count="succeeded">3</); // h_2, m_1 and r_1 within 24 h
    expect(text).toMatch(/data-count-7d="failed">1</);
    expect(text).toMatch(/data-count-7d="succeeded">4</); // h_0 is 72 h old: still within 7 d
    expect(text).toMatch(/data-queue="waiting">1</);
    expect(text).toMatch(/data-queue="oldest">10 min</);
    // The banner: hourly missed 09:00 (its last run is 3 h old), the queue waits for a worker.
    expect(text).toContain('role="alert"');
    expect(text).toContain("hourly was due");
    expect(text).toContain("is a scheduler running");
    expect(text).toContain("Queue tidemark.run: the oldest message has waited 10 min for a worker");
    expect(text).toContain('data-late="true"');
    const order = [...text.matchAll(/data-job="([^"]+)"/g)].map((m) => m[1]);
    expect(order).toEqual(["hourly", "manual", "rakuten-item"]);
    const adHoc = text.slice(text.indexOf('data-job="rakuten-item"'));
    expect(adHoc).toContain("ad hoc");
    expect(adHoc).not.toContain("Run rakuten-item now");
  });

  it("no banner when nothing is late or waiting", async () => {
    const runtime = await openTestRuntime(h, { clock: new ManualClock(NOW) });
    const { get } = await openUi(runtime);
    const { text } = await get("/ui/fragments/overview");
    expect(text).not.toContain('role="alert"');
  });

  it("a run past its usual duration, and one whose lease stopped beating, are named in the banner", async () => {
    const clock = new ManualClock(hoursAgo(1));
    const runtime = await openTestRuntime(h, { clock });
    const repo = new RunRepo(runtime.db);
    // Usually a minute: three succeeded runs of one minute each.
    for (const i of [1, 2, 3]) {
      const start = hoursAgo(1 - i * 0.1);
      const end = new Date(Date.parse(start) + 60_000).toISOString();
      await repo.insertFinished(storedRun("slow", `s_${i}`, { startedAt: start, finishedAt: end }));
    }
    // Run s_4 took its lease (30 min to live) 25 min ago and has not renewed it since.
    clock.set(new Date(Date.parse(NOW) - 25 * 60_000));
    const started = clock.now().toISOString();
    await runtime.leases.tryAcquire("job:slow", "s_4", 30 * 60_000);
    await repo.insertStarted({
      runId: "s_4",
      jobName: "slow",
      jobType: "test.echo",
      startedAt: started,
      dryRun: false,
      leaseKey: "job:slow",
      host: "h",
      pid: 1,
    });
    clock.set(NOW);
    const { get } = await openUi(runtime);
    const { text } = await get("/ui/fragments/overview");
    expect(text).toContain("Run s_4 of slow has been running for 25 min; it usually takes 1 min.");
    expect(text).toContain("The lease job:slow of run s_4 has had no heartbeat for 25 min");
    expect(text).toContain('href="/ui/runs/s_4"');
  });
});
