import { expect, it } from "vitest";
import { typed } from "../../infra/db/open-database.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { openTestRuntime } from "../../testing/test-runtime.ts";
import type { EngineTables } from "../engine-tables.ts";
import { executeRun } from "./job-runner.ts";
import { RunRepo } from "./run-repo.ts";

describeEachDialect("what a run record keeps", (h) => {
  it("lists a page of runs in SQL: since a time, newest first, skipping the pages before", async () => {
    const rt = await openTestRuntime(h);
    const runs = new RunRepo(rt.db);
    for (let i = 0; i < 6; i++) {
      await runs.insertStarted({
        runId: `p_20260115T09300${i}Z_abcdef`,
        jobName: "p",
        jobType: "test.echo",
        startedAt: `2026-01-15T09:30:0${i}.000Z`,
        dryRun: false,
        leaseKey: "job:p",
        host: "h",
        pid: 1,
      });
    }
    const page = await runs.list({ since: "2026-01-15T09:30:01.000Z", offset: 2, limit: 2 });
    expect(page.map((r) => r.startedAt)).toEqual([
      "2026-01-15T09:30:03.000Z",
      "2026-01-15T09:30:02.000Z",
    ]);
  });

  it("the params the run ran with, defaults filled, whatever the job holds later", async () => {
    const rt = await openTestRuntime(h);
    const report = await executeRun(rt, {
      jobName: "p",
      jobType: "test.echo",
      params: { message: "m" },
    });
    expect((await new RunRepo(rt.db).get(report.runId))?.params).toEqual({
      message: "m",
      fail: false,
      sleep_ms: 0,
      skip: false,
    });
  });

  it("params with their secret fields masked", async () => {
    const rt = await openTestRuntime(h);
    const runs = new RunRepo(rt.db);
    await runs.insertStarted({
      runId: "s_20260115T093000Z_abcdef",
      jobName: "s",
      jobType: "test.echo",
      startedAt: "2026-01-15T09:30:00.000Z",
      dryRun: false,
      leaseKey: "job:s",
      host: "h",
      pid: 1,
      params: { query: "tea", api_key: "SEKRET-2" },
    });
    expect((await runs.get("s_20260115T093000Z_abcdef"))?.params).toEqual({
      query: "tea",
      api_key: "[REDACTED]",
    });
  });

  it("a note instead of params too large to copy into every run row", async () => {
    const rt = await openTestRuntime(h);
    const runs = new RunRepo(rt.db);
    await runs.insertStarted({
      runId: "big_20260115T093000Z_abcdef",
      jobName: "big",
      jobType: "test.echo",
      startedAt: "2026-01-15T09:30:00.000Z",
      dryRun: false,
      leaseKey: "job:big",
      host: "h",
      pid: 1,
      params: { item_codes: Array.from({ length: 5000 }, (_, i) => `shop:${i}`) },
    });
    expect((await runs.get("big_20260115T093000Z_abcdef"))?.params).toEqual({
      omitted: "58,906 bytes of params, too large to keep with the run",
    });
  });

  it("an error that quotes a secret is stored and reported with the secret masked", async () => {
    const rt = await openTestRuntime(h);
    const report = await executeRun(rt, {
      jobName: "leaky",
      jobType: "test.echo",
      params: { message: "GET https://api.example.com/v1?apiKey=SEKRET-123 failed", fail: true },
    });
    expect(report.error).toBe(
      "echo failed: GET https://api.example.com/v1?apiKey=[REDACTED] failed",
    );
    expect((await new RunRepo(rt.db).get(report.runId))?.error).toBe(report.error);
  });

  // Postgres keeps these columns as jsonb, which refuses such a write; SQLite keeps text.
  it.skipIf(h.dialect !== "sqlite")(
    "a row whose summary or progress is not JSON is listed with a note, not a failure",
    async () => {
      const rt = await openTestRuntime(h);
      const report = await executeRun(rt, {
        jobName: "torn",
        jobType: "test.echo",
        params: { message: "m" },
      });
      await typed<EngineTables>(rt.db)
        .updateTable("tm_runs")
        .set({ summary: '{"cut', progress: "x" })
        .where("run_id", "=", report.runId)
        .execute();
      const [run] = await new RunRepo(rt.db).list({ jobName: "torn" });
      expect(run?.summary).toEqual({ unreadable: "tm_runs.summary is not valid JSON" });
      expect(run?.progress).toBeUndefined();
    },
  );
});
