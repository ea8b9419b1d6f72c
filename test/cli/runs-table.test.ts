// `runs ls` fits the terminal: other columns go before the error is cut unreadably short.
import { describe, expect, it } from "vitest";
import { runsTable } from "../../src/cli/output/runs-table.ts";
import type { RunRecord } from "../../src/engine/runs/run-repo.ts";

function run(job: string, error: string | null): RunRecord {
  return {
    runId: `${job}_20261206T113859Z_6d10ab`,
    jobName: job,
    jobType: "books.run",
    status: error ? "failed" : "succeeded",
    startedAt: "2026-12-06T11:38:59.946Z",
    finishedAt: "2026-12-06T11:39:52.100Z",
    summary: null,
    error,
    dryRun: false,
    leaseKey: job,
    host: "h",
    pid: 1,
  };
}

const ERROR =
  "books API: GET /books/v1/volumes?q=intitle:tea answered 503 three times; the cursor stays at 40";
const RUNS = [run("consultant-books-nightly", ERROR), run("consultant-books-nightly", null)];

/** The text of the first run's error as shown, whatever the layout. */
function shownError(table: string): string {
  const line = table.split("\n").find((l) => l.includes("books API"))!;
  return line.slice(line.indexOf("books API"));
}

describe("runs ls table", () => {
  for (const width of [80, 100, 120, 150]) {
    it(`fits ${width} columns and shows at least 40 characters of the error`, () => {
      const table = runsTable(RUNS, width);
      expect(table.split("\n").filter((l) => l.length > width)).toEqual([]);
      expect(shownError(table).length).toBeGreaterThanOrEqual(40);
      expect(table).toContain(RUNS[0]!.runId);
    });
  }

  it("drops JOB (the run id starts with it) before anything else", () => {
    const table = runsTable(RUNS, 150);
    expect(table.split("\n")[0]).toMatch(/^RUN ID +STATUS +STARTED +DURATION +ERROR$/);
  });

  it("keeps every column when there is room", () => {
    const table = runsTable(RUNS, 250);
    expect(table.split("\n")[0]).toMatch(/^RUN ID +JOB +STATUS +STARTED +DURATION +ERROR$/);
    expect(shownError(table)).toBe(ERROR);
  });

  it("puts the error below its run on a very narrow terminal", () => {
    const table = runsTable(RUNS, 62).split("\n");
    expect(table[0]).toMatch(/^RUN ID +STATUS$/);
    expect(table[2]).toMatch(/^ {4}error: books API: GET/);
    expect(table.filter((l) => l.length > 62)).toEqual([]);
  });
  it("off a terminal keeps every column (scripts read JOB) and cuts the error to the room left", () => {
    const table = runsTable(RUNS, 150, true).split("\n");
    expect(table[0]).toMatch(/^RUN ID +JOB +STATUS +STARTED +DURATION +ERROR$/);
    expect(table.filter((l) => l.length > 150)).toEqual([]);
    expect(table[1]).toMatch(/…$/);
  });
});
