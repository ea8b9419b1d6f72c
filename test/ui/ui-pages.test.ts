// The dashboard's pages in-process on both dialects: ordering, counts, filters, paging, a run's
// failures and the refusals of bad input. (The browser suite covers the flows end to end.)
import { expect, it } from "vitest";
import { JobService } from "../../src/engine/jobs/job-service.ts";
import { type RunRecord, RunRepo } from "../../src/engine/runs/run-repo.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { addEchoJob } from "../../src/testing/echo-job-queue.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import { openTestRuntime } from "../../src/testing/test-runtime.ts";
import { openUi, storedRun } from "./ui-app.ts";

const NOW = "2026-01-15T09:30:00.000Z";
const minutesAgo = (m: number) => new Date(Date.parse(NOW) - m * 60_000).toISOString();

function run(jobName: string, n: number, over: Partial<RunRecord> = {}): RunRecord {
  const runId = `${jobName}_${String(n).padStart(3, "0")}`;
  const times = { startedAt: minutesAgo(100 - n), finishedAt: minutesAgo(99 - n) };
  return storedRun(jobName, runId, times, over);
}

describeEachDialect("dashboard pages", (h) => {
  it("overview: failing jobs first, runs of the last 24 h by status", async () => {
    const runtime = await openTestRuntime(h, { clock: new ManualClock(NOW) });
    const jobs = new JobService(runtime.db, runtime.registry, runtime.clock);
    for (const name of ["a-ok", "m-never", "z-bad"]) {
      await jobs.add({
        name,
        type: "test.echo",
        params: { message: "x" },
        schedule: "0 3 * * *",
        timezone: "UTC",
        enabled: true,
      });
    }
    const repo = new RunRepo(runtime.db);
    await repo.insertFinished(run("a-ok", 1));
    await repo.insertFinished(run("z-bad", 2, { status: "failed", error: "boom" }));
    await repo.insertFinished(
      run("a-ok", 3, { startedAt: minutesAgo(25 * 60), finishedAt: minutesAgo(25 * 60) }),
    );
    const { get } = await openUi(runtime);
    const { text } = await get("/ui/fragments/overview");
    const order = [...text.matchAll(/data-job="([^"]+)"/g)].map((m) => m[1]);
    expect(order).toEqual(["z-bad", "a-ok", "m-never"]);
    expect(text).toMatch(/data-count="succeeded">1</);
    expect(text).toMatch(/data-count="failed">1</);
    expect(text).toContain("in 18 h"); // next 03:00 UTC, 17.5 h away
  });

  it("runs: filter by job and status, 25 a page, and a run's failed targets", async () => {
    const runtime = await openTestRuntime(h, { clock: new ManualClock(NOW) });
    const repo = new RunRepo(runtime.db);
    for (let i = 0; i < 30; i++) await repo.insertFinished(run("many", i));
    await repo.insertFinished(
      run("etl", 40, {
        status: "failed",
        error: "2 of 3 targets failed",
        summary: {
          failures: [
            { target: "item:1", kind: "fetch", message: "HTTP 500" },
            { target: "item:<2>", kind: "apply", message: "bad row" },
          ],
        },
      }),
    );
    const { get } = await openUi(runtime);
    const first = await get("/ui/runs?job=many");
    expect([...first.text.matchAll(/<tr>\s*<th scope="row">/g)]).toHaveLength(25);
    expect(first.text).toContain('href="/ui/runs?job=many&amp;page=1"');
    const second = await get("/ui/runs?job=many&page=1");
    expect([...second.text.matchAll(/<tr>\s*<th scope="row">/g)]).toHaveLength(5);
    expect(second.text).toContain("many_000");
    expect(second.text).not.toContain('rel="next"');
    const failed = await get("/ui/runs?status=failed");
    expect(failed.text).toContain("etl_040");
    expect(failed.text).not.toContain("many_0");
    const page = await get("/ui/runs/etl_040");
    expect(page.text).toContain("HTTP 500");
    expect(page.text).toContain("item:&lt;2&gt;");
    expect(page.text).toContain("2 of 3 targets failed");
  });

  it("refuses bad input with one line and writes nothing", async () => {
    const runtime = await openTestRuntime(h, { clock: new ManualClock(NOW) });
    const jobs = new JobService(runtime.db, runtime.registry, runtime.clock);
    await addEchoJob(runtime, "j", { message: "x" });
    const { get, post } = await openUi(runtime);
    expect((await get("/ui/runs?status=bogus")).status).toBe(400);
    expect((await get("/ui/runs?page=-1")).status).toBe(400);
    expect((await get("/ui/runs/no-such-run")).status).toBe(404);
    expect((await get("/ui/pipelines/no-such")).status).toBe(404);
    expect((await get("/ui/nope")).status).toBe(404);
    expect((await post("/ui/jobs/j/enabled", "enabled=maybe")).status).toBe(400);
    expect((await post("/ui/jobs/no-such/enabled", "enabled=false")).status).toBe(404);
    expect((await post("/ui/jobs/no-such/run", "")).status).toBe(404);
    expect((await post("/ui/queue/redrive", "queue=tidemark.run&id=all")).status).toBe(409);
    expect((await jobs.get("j")).enabled).toBe(true);
    const off = await post("/ui/jobs/j/enabled", "enabled=false");
    expect(off.status).toBe(303);
    expect((await jobs.get("j")).enabled).toBe(false);
  });
});
