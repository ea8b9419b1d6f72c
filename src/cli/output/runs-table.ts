import { formatTable } from "../../engine/output/format-table.ts";
import type { RunRecord } from "../../engine/runs/run-repo.ts";
import { fitOneLine } from "./fit-text.ts";

/** Room the error needs beside the other columns to stay readable; less, it goes below. */
const READABLE_ERROR = 40;

/** A run's duration: `83ms`, `2.5s`, or `-` while it runs. */
export function duration(run: RunRecord): string {
  if (!run.finishedAt) return "-";
  const ms = Date.parse(run.finishedAt) - Date.parse(run.startedAt);
  return ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(1)}s`;
}

interface Column {
  header: string;
  cell(run: RunRecord): string;
}

const RUN_ID: Column = { header: "RUN ID", cell: (r) => r.runId };
const JOB: Column = { header: "JOB", cell: (r) => r.jobName };
const STATUS: Column = { header: "STATUS", cell: (r) => r.status };
const STARTED: Column = { header: "STARTED", cell: (r) => r.startedAt };
const DURATION: Column = { header: "DURATION", cell: duration };

/**
 * Columns to show, widest set first. The run id already carries the job name and the start
 * time to the second, so JOB goes first, then DURATION, then STARTED.
 */
const LAYOUTS: Column[][] = [
  [RUN_ID, JOB, STATUS, STARTED, DURATION],
  [RUN_ID, STATUS, STARTED, DURATION],
  [RUN_ID, STATUS, STARTED],
  [RUN_ID, STATUS],
];

/** Width of the columns before ERROR, as formatTable pads them (two spaces between). */
function widthBefore(columns: Column[], runs: RunRecord[]): number {
  return columns.reduce(
    (sum, c) => sum + Math.max(c.header.length, ...runs.map((r) => c.cell(r).length)) + 2,
    0,
  );
}

/**
 * The runs table within `width` columns: other columns are dropped before the error is cut
 * short; when even the narrowest layout leaves it too little room, each error goes on its
 * own indented line below its run. `allColumns` (output that is not a terminal) keeps every
 * column and cuts the error to the room left.
 */
export function runsTable(runs: RunRecord[], width: number, allColumns = false): string {
  const longest = Math.max(0, ...runs.map((r) => (r.error ?? "").length));
  const wanted = allColumns ? 0 : Math.min(longest, READABLE_ERROR);
  const layout =
    LAYOUTS.find((cols) => width - widthBefore(cols, runs) >= wanted) ?? LAYOUTS.at(-1)!;
  const room = width - widthBefore(layout, runs);
  const headers = layout.map((c) => c.header);
  const cells = (r: RunRecord) => layout.map((c) => c.cell(r));
  if (room >= wanted) {
    return formatTable(
      [...headers, "ERROR"],
      runs.map((r) => [...cells(r), r.error ? fitOneLine(r.error, room) : ""]),
    );
  }
  const table = formatTable(headers, runs.map(cells)).split("\n");
  const out = [table[0]!];
  runs.forEach((r, i) => {
    out.push(table[i + 1]!);
    if (r.error) out.push(`    error: ${fitOneLine(r.error, width - 11)}`);
  });
  return out.join("\n");
}
