// Answers that are not the shape Google Books documents fail the run's Collect: the error names
// the field and the request, and the cursor stays before the page (never exhausted by it).
import { expect, it } from "vitest";
import type { RunReport } from "../../src/engine/runs/job-runner.ts";
import { runDue } from "../../src/engine/runs/run-due.ts";
import type { Runtime } from "../../src/engine/runtime/runtime.ts";
import { computeQuerySetHash } from "../../src/pipelines/books/stages/collect/query-set-hash.ts";
import { type DialectHarness, describeEachDialect } from "../../src/testing/dialects.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import {
  addBooksJob,
  cursorRepo,
  exampleParams,
  openBooksRuntime,
  startBooksFake,
} from "./support/books-harness.ts";

const Q = "intitle:consulting";
const JOB = "wrong-shape-books";
const HASH = computeQuerySetHash([Q]);

async function setup(h: DialectHarness) {
  const clock = new ManualClock("2026-05-01T09:30:00.000Z");
  const { fake, server } = await startBooksFake({ sizes: { [Q]: 500 } });
  const { runtime } = await openBooksRuntime(h, { clock, books: { base_url: server.url } });
  await addBooksJob(runtime, JOB, exampleParams({ queries: [Q], max_per_run: 120 }), "0 * * * *");
  let hour = 10;
  /** Runs the due job an hour later than the last time (dry run: no mail needed). */
  const runNext = async (): Promise<RunReport> => {
    clock.set(`2026-05-01T${String(hour++).padStart(2, "0")}:00:05.000Z`);
    const mine = (await runDue(runtime, { dryRun: true })).find((o) => o.job === JOB);
    if (mine?.outcome !== "ran") throw new Error(`job did not run: ${JSON.stringify(mine)}`);
    return mine.report;
  };
  return { fake, server, runtime, runNext };
}

async function cursorOf(runtime: Runtime) {
  return cursorRepo(runtime).getCollectCursor(JOB, HASH);
}

/** A page of one volume whose volumeInfo is `info`. */
function pageWith(info: Record<string, unknown>): string {
  const items = [{ kind: "books#volume", id: "vol-wrong-1", etag: "e", volumeInfo: info }];
  return JSON.stringify({ kind: "books#volumes", totalItems: 500, items });
}

describeEachDialect("books: answers of the wrong shape", (h) => {
  it("a wrong-typed field fails the page, naming field and request; the cursor stays before it", async () => {
    const { fake, runtime, runNext } = await setup(h);
    // Page 1 is answered normally; page 2 has a page count that is text.
    fake.knobs.answerNext = [null, pageWith({ title: "T", pageCount: "many" })];
    const first = await runNext();
    expect(first.status).toBe("failed");
    expect(first.error).toContain("items[0].volumeInfo.pageCount");
    expect(first.error).toMatch(
      /GET http:\/\/127\.0\.0\.1:\d+\/books\/v1\/volumes\?q=intitle%3Aconsulting&startIndex=40&/,
    );
    expect(first.summary).toMatchObject({ stop_reason: "error", next_start_index: 40, items: 40 });
    expect(await cursorOf(runtime)).toMatchObject({ start_index: 40, is_exhausted: false });

    fake.calls.length = 0;
    const second = await runNext();
    expect(second.status).toBe("succeeded");
    expect(fake.calls.map((c) => c.startIndex)).toEqual([40, 80, 120]);
    expect(await cursorOf(runtime)).toMatchObject({ start_index: 160, is_exhausted: false });
  });

  it("bodies that only look empty fail instead of exhausting the cursor", async () => {
    const { fake, runtime, runNext } = await setup(h);
    const cases: [string, string][] = [
      ['{"kind":"books#volumes","totalItems":500,"items":[]}', "items"],
      ['{"totalItems":0}', "kind"],
      ["{}", "kind"],
      ['{"kind":"books#volumes","totalItems":"0"}', "totalItems"],
      ['{"kind":"books#volumes","totalItems":0,"items":null}', "items"],
      ['{"kind":"books#volumes","totalItems":500,"items":[{"id":7}]}', "items[0].id"],
    ];
    for (const [body, field] of cases) {
      fake.knobs.answerNext = [body];
      const report = await runNext();
      expect(report.status, body).toBe("failed");
      expect(report.error, body).toContain(`${field}:`);
      expect(report.summary, body).toMatchObject({ stop_reason: "error", exhausted: false });
      expect(await cursorOf(runtime), body).toMatchObject({ start_index: 0, is_exhausted: false });
    }
  });

  it("the documented empty answer (no items) exhausts the query", async () => {
    const { fake, runtime, runNext } = await setup(h);
    fake.knobs.answerNext = ['{"kind":"books#volumes","totalItems":0}'];
    const report = await runNext();
    expect(report.status).toBe("succeeded");
    expect(report.summary).toMatchObject({ stop_reason: "exhausted", exhausted: true });
    expect(await cursorOf(runtime)).toMatchObject({ start_index: 0, is_exhausted: true });
  });
});
