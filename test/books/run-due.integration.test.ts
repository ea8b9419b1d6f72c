// run-due integration against the fake API, on SQLite and Postgres.
import { expect, it } from "vitest";
import { JobService } from "../../src/engine/jobs/job-service.ts";
import type { RunReport } from "../../src/engine/runs/job-runner.ts";
import { runDue } from "../../src/engine/runs/run-due.ts";
import type { Runtime } from "../../src/engine/runtime/runtime.ts";
import { resetCursors } from "../../src/pipelines/books/commands/reset-command.ts";
import {
  computeQuerySetHash,
  shortHash,
} from "../../src/pipelines/books/stages/collect/query-set-hash.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import {
  addBooksJob,
  cursorRepo,
  exampleParams,
  messages,
  openBooksRuntime,
  startBooksFake,
} from "./support/books-harness.ts";

const Q1 = "intitle:consulting";
const Q2 = "subject:management";
const JOB = "consultant-books";

/** Moves the clock to the next hour and runs every due job; returns the books job's report. */
async function runDueAt(
  runtime: Runtime,
  clock: ManualClock,
  hour: number,
  options: { dryRun?: boolean } = { dryRun: true },
): Promise<RunReport> {
  clock.set(`2026-05-01T${String(hour).padStart(2, "0")}:00:05.000Z`);
  const outcomes = await runDue(runtime, options);
  const mine = outcomes.find((o) => o.job === JOB);
  if (mine?.outcome !== "ran") throw new Error(`job did not run: ${JSON.stringify(outcomes)}`);
  return mine.report;
}

async function setup(
  h: Parameters<Parameters<typeof describeEachDialect>[1]>[0],
  sizes: Record<string, number>,
  params: Record<string, unknown> = exampleParams(),
  books: Record<string, unknown> = {},
) {
  const clock = new ManualClock("2026-05-01T09:30:00.000Z");
  const { fake, server } = await startBooksFake({ sizes });
  const { runtime, logs } = await openBooksRuntime(h, {
    clock,
    books: { base_url: server.url, ...books },
  });
  await addBooksJob(runtime, JOB, params, "0 * * * *");
  return { clock, fake, server, runtime, logs };
}

describeEachDialect("books run-due integration", (h) => {
  it("persists the cursor and continues from it on the next run", async () => {
    const { clock, fake, runtime } = await setup(h, { [Q1]: 500, [Q2]: 500 });
    const hash = computeQuerySetHash([Q1, Q2]);

    const first = await runDueAt(runtime, clock, 10);
    expect(first.status).toBe("succeeded");
    expect(first.summary).toMatchObject({
      query_set_hash: shortHash(hash),
      start_index: 0,
      next_start_index: 40,
      stop_reason: "max_per_run",
      exhausted: false,
    });
    expect(await cursorRepo(runtime).getCollectCursor(JOB, hash)).toMatchObject({
      start_index: 40,
      is_exhausted: false,
    });

    fake.calls.length = 0;
    const second = await runDueAt(runtime, clock, 11);
    expect(fake.calls.map((c) => [c.q, c.startIndex])).toEqual([
      [Q1, 40],
      [Q2, 40],
    ]);
    expect(second.summary).toMatchObject({ start_index: 40, next_start_index: 80 });
    expect(await cursorRepo(runtime).listCollectCursors(JOB)).toHaveLength(1);
  });

  it("starts a new cursor at 0 when the queries change (new query_set_hash)", async () => {
    const { clock, fake, runtime } = await setup(h, {
      [Q1]: 500,
      [Q2]: 500,
      "intitle:strategy": 500,
    });
    await runDueAt(runtime, clock, 10);
    const jobs = new JobService(runtime.db, runtime.registry, clock);

    // Order and whitespace do not change the set: the cursor carries on.
    await jobs.update(JOB, { params: exampleParams({ queries: [`  ${Q2} `, Q1] }) });
    fake.calls.length = 0;
    await runDueAt(runtime, clock, 11);
    expect(fake.calls.map((c) => c.startIndex)).toEqual([40, 40]);

    await jobs.update(JOB, { params: exampleParams({ queries: [Q1, "intitle:strategy"] }) });
    fake.calls.length = 0;
    const report = await runDueAt(runtime, clock, 12);
    expect(fake.calls.map((c) => [c.q, c.startIndex])).toEqual([
      [Q1, 0],
      ["intitle:strategy", 0],
    ]);
    const newHash = computeQuerySetHash([Q1, "intitle:strategy"]);
    expect(report.summary).toMatchObject({ query_set_hash: shortHash(newHash), start_index: 0 });
    const rows = await cursorRepo(runtime).listCollectCursors(JOB);
    expect(rows.map((r) => [r.query_set_hash, r.start_index]).sort()).toEqual(
      [
        [computeQuerySetHash([Q1, Q2]), 80],
        [newHash, 40],
      ].sort(),
    );
  });

  it("marks the cursor exhausted, then skips Collect on later runs", async () => {
    const { clock, fake, runtime, logs } = await setup(h, { [Q1]: 30, [Q2]: 20 });
    const hash = computeQuerySetHash([Q1, Q2]);
    const first = await runDueAt(runtime, clock, 10);
    expect(first.summary).toMatchObject({
      stop_reason: "exhausted",
      exhausted: true,
      next_start_index: 30,
    });
    const exhausted = await cursorRepo(runtime).getCollectCursor(JOB, hash);
    expect(exhausted).toMatchObject({ start_index: 30, is_exhausted: true });
    expect(messages(logs)).toContain(
      `[WARN][google-books][${JOB}] Exhausted: startIndex=30 >= totalItems=30 (query_set_hash=${shortHash(hash)})`,
    );

    fake.calls.length = 0;
    const second = await runDueAt(runtime, clock, 11);
    expect(fake.calls).toEqual([]);
    expect(second.summary).toMatchObject({ collect: "skipped: exhausted", start_index: 30 });
    expect(messages(logs)).toContain(
      `[${JOB}] Skipped: exhausted (query_set_hash=${shortHash(hash)})`,
    );
    expect(await cursorRepo(runtime).getCollectCursor(JOB, hash)).toEqual(exhausted);
  });

  it("resumes from startIndex 0 after job cursor reset", async () => {
    const { clock, fake, runtime } = await setup(h, { [Q1]: 30, [Q2]: 20 });
    await runDueAt(runtime, clock, 10);
    expect(await resetCursors(runtime, JOB)).toBe(1);
    expect(await cursorRepo(runtime).listCollectCursors(JOB)).toEqual([]);
    fake.calls.length = 0;
    const report = await runDueAt(runtime, clock, 11);
    expect(fake.calls.map((c) => c.startIndex)).toEqual([0, 0]);
    expect(report.summary).toMatchObject({ start_index: 0, stop_reason: "exhausted" });
  });

  it("does not mark exhausted on an API error and resumes there on the next run", async () => {
    const params = exampleParams({ queries: [Q1], max_per_run: 120 });
    const { clock, fake, server, runtime } = await setup(h, { [Q1]: 500 }, params);
    const hash = computeQuerySetHash([Q1]);
    server.faults.set({ statusSequence: [200, 500] });
    const first = await runDueAt(runtime, clock, 10);
    expect(first.status).toBe("failed");
    expect(first.error).toMatch(/collect stopped on an API error: .*HTTP 500/);
    expect(first.summary).toMatchObject({ stop_reason: "error", next_start_index: 40, items: 40 });
    expect(await cursorRepo(runtime).getCollectCursor(JOB, hash)).toMatchObject({
      start_index: 40,
      is_exhausted: false,
    });

    fake.calls.length = 0;
    const second = await runDueAt(runtime, clock, 11);
    expect(second.status).toBe("succeeded");
    expect(fake.calls.map((c) => c.startIndex)).toEqual([40, 80, 120]);
    expect(second.summary).toMatchObject({ start_index: 40, next_start_index: 160 });
  });

  it("does not mark exhausted on a quota stop (budget or API 429) and resumes the next day", async () => {
    const params = exampleParams({ queries: [Q1], max_per_run: 200 });
    const { clock, fake, runtime } = await setup(h, { [Q1]: 500 }, params, {
      daily_request_limit: 3,
    });
    const hash = computeQuerySetHash([Q1]);
    const first = await runDueAt(runtime, clock, 10);
    expect(first.status).toBe("succeeded");
    expect(first.summary).toMatchObject({
      stop_reason: "quota",
      next_start_index: 120,
      quota_used_today: 3,
    });
    expect(fake.calls).toHaveLength(3);
    expect(await cursorRepo(runtime).getCollectCursor(JOB, hash)).toMatchObject({
      start_index: 120,
      is_exhausted: false,
    });

    // Same Pacific day: the budget is spent, no request goes out.
    fake.calls.length = 0;
    const second = await runDueAt(runtime, clock, 11);
    expect(fake.calls).toEqual([]);
    expect(second.summary).toMatchObject({
      stop_reason: "quota",
      start_index: 120,
      next_start_index: 120,
    });

    // The API itself says the quota is spent (429): still not exhausted.
    fake.knobs.quotaExhausted = true;
    clock.set("2026-05-02T07:00:05.000Z"); // 00:00:05 PDT: a new quota day
    const outcomes = await runDue(runtime, { dryRun: true });
    const third = outcomes[0]?.outcome === "ran" ? outcomes[0].report : undefined;
    expect(third?.summary).toMatchObject({
      stop_reason: "quota",
      next_start_index: 120,
      exhausted: false,
    });
    expect(fake.calls.map((c) => c.status)).toEqual([429]);

    fake.knobs.quotaExhausted = false;
    fake.calls.length = 0;
    clock.set("2026-05-03T07:00:05.000Z");
    await runDue(runtime, { dryRun: true });
    expect(fake.calls.map((c) => c.startIndex)).toEqual([120, 160, 200]);
    expect(await cursorRepo(runtime).getCollectCursor(JOB, hash)).toMatchObject({
      start_index: 240,
      is_exhausted: false,
    });
  });
});
