// The runs list as a person filters it: every job that has runs can be chosen (ad-hoc runs and
// removed jobs included), the filter shown is the one applied, and short runs show their time.
import { expect, it } from "vitest";
import { type RunRecord, RunRepo } from "../../src/engine/runs/run-repo.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { addEchoJob } from "../../src/testing/echo-job-queue.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import { openTestRuntime } from "../../src/testing/test-runtime.ts";
import { openUi, storedRun } from "./ui-app.ts";

const NOW = "2026-01-15T09:30:00.000Z";

function run(jobName: string, runId: string, tookMs: number): RunRecord {
  const started = Date.parse(NOW) - 60_000;
  return storedRun(jobName, runId, {
    startedAt: new Date(started).toISOString(),
    finishedAt: new Date(started + tookMs).toISOString(),
  });
}

const selected = (text: string) =>
  /<select name="job">.*?<option value="([^"]*)" selected>/s.exec(text)?.[1];

describeEachDialect("dashboard runs list", (h) => {
  it("offers every job with runs, keeps the applied job selected, links each run's job", async () => {
    const runtime = await openTestRuntime(h, { clock: new ManualClock(NOW) });
    await addEchoJob(runtime, "stored", { message: "x" });
    const repo = new RunRepo(runtime.db);
    await repo.insertFinished(run("stored", "stored_1", 2500));
    // A run recorded under a name with no stored job (an ad-hoc run, or a job removed since).
    await repo.insertFinished(run("adhoc-item", "adhoc_1", 47));
    const { get } = await openUi(runtime);

    const all = await get("/ui/runs");
    expect(all.text).toContain('<option value="adhoc-item">adhoc-item</option>');
    expect(all.text).toContain('<option value="stored">stored</option>');
    // Every job name links to its page, which for a name without a stored job shows its runs.
    expect(all.text).toContain('<a href="/ui/jobs/adhoc-item">adhoc-item</a>');
    const jobPage = await get("/ui/jobs/adhoc-item");
    expect(jobPage.status).toBe(200);
    expect(jobPage.text).toContain("No job named <code>adhoc-item</code> is stored");
    expect(jobPage.text).toContain("adhoc_1");

    const adhoc = await get("/ui/runs?job=adhoc-item");
    expect(selected(adhoc.text)).toBe("adhoc-item");
    expect(adhoc.text).toContain("adhoc_1");
    // A job name with no run at all (a link from elsewhere) is still the one shown as applied.
    const none = await get("/ui/runs?job=never-ran");
    expect(selected(none.text)).toBe("never-ran");
    expect(none.text).toContain("No runs match.");
  });

  it("shows a run under a second in milliseconds, not as 0 s", async () => {
    const runtime = await openTestRuntime(h, { clock: new ManualClock(NOW) });
    const repo = new RunRepo(runtime.db);
    await repo.insertFinished(run("quick", "quick_1", 47));
    await repo.insertFinished(run("slow", "slow_1", 2500));
    const { get } = await openUi(runtime);
    const list = await get("/ui/runs");
    expect(list.text).toMatch(/<td class="num" data-label="Took">47 ms<\/td>/);
    expect(list.text).toMatch(/<td class="num" data-label="Took">3 s<\/td>/);
    expect((await get("/ui/runs/quick_1")).text).toContain("<dt>Took</dt><dd>47 ms</dd>");
  });

  it("the overview's 24-hour counts open the runs of those 24 hours, not of all time", async () => {
    const runtime = await openTestRuntime(h, { clock: new ManualClock(NOW) });
    const repo = new RunRepo(runtime.db);
    const failed = (runId: string, hoursAgo: number): RunRecord => {
      const at = new Date(Date.parse(NOW) - hoursAgo * 3600_000).toISOString();
      return { ...run("j", runId, 10), status: "failed", startedAt: at, finishedAt: at };
    };
    await repo.insertFinished(failed("recent_1", 2));
    await repo.insertFinished(failed("old_1", 30));
    const { get } = await openUi(runtime);
    const overview = await get("/ui");
    expect(overview.text).toContain('href="/ui/runs?status=failed&amp;since=24h"');
    expect(overview.text).toMatch(/data-count="failed">1</);
    const window = await get("/ui/runs?status=failed&since=24h");
    expect(window.text).toContain("recent_1");
    expect(window.text).not.toContain("old_1");
    expect(window.text).toContain('<input type="hidden" name="since" value="24h" />');
    expect(window.text).toContain('href="/ui/runs?status=failed">Show all</a>');
    expect((await get("/ui/runs?status=failed")).text).toContain("old_1");
    expect((await get("/ui/runs?since=1y")).status).toBe(400);
  });

  it("a run left `running` by a dead process counts as abandoned on the overview, as in the list", async () => {
    const runtime = await openTestRuntime(h, { clock: new ManualClock(NOW) });
    const at = new Date(Date.parse(NOW) - 3600_000).toISOString();
    // No lease holds it: its process is gone.
    await new RunRepo(runtime.db).insertFinished({
      ...run("j", "dead_1", 0),
      status: "running",
      startedAt: at,
      finishedAt: null,
    });
    const { get } = await openUi(runtime);
    const overview = await get("/ui/fragments/overview");
    expect(overview.text).toMatch(/data-count="running">0</);
    expect(overview.text).toMatch(/data-count="abandoned">1</);
    expect((await get("/ui/runs?status=abandoned&since=24h")).text).toContain("dead_1");
  });

  it("the list shows an error's first line, cut short; the run's page shows it whole", async () => {
    const runtime = await openTestRuntime(h, { clock: new ManualClock(NOW) });
    const error = `first line ${"x".repeat(300)}\nsecond line`;
    await new RunRepo(runtime.db).insertFinished({
      ...run("j", "long_1", 10),
      status: "failed",
      error,
    });
    const { get } = await openUi(runtime);
    const cell = /<td class="hide-narrow error-cell">([^<]*)<\/td>/.exec(
      (await get("/ui/runs")).text,
    )?.[1];
    expect(cell).toBe(`first line ${"x".repeat(149)}…`);
    const page = (await get("/ui/runs/long_1")).text;
    expect(page).toContain("x".repeat(300));
    expect(page).toContain("second line");
  });
});
