import {
  groupedRunChart,
  type PanelBlock,
  type PanelModule,
  type PanelRun,
  type PanelServices,
  type PipelineServices,
  summaryNumber,
} from "tidemark";
import { z } from "zod";
import { resetCommand } from "../commands/reset-command.ts";
import { type BooksStatus, booksStatus } from "../monitoring/status.ts";
import type { BooksSettings } from "../settings.ts";

/** What the panel's blocks read: the pipeline's services, its settings validated once. */
type BooksServices = PipelineServices<BooksSettings>;

/** Requests counted today (Google's Pacific day), over every API key. */
function quotaBlock(status: BooksStatus): PanelBlock {
  const { day, used, limit } = status.quota;
  const tone = used >= limit ? "bad" : used >= limit * 0.8 ? "warn" : "ok";
  return {
    kind: "stats",
    items: [
      { label: `quota used today (${day}, Pacific)`, value: `${used} / ${limit}`, tone },
      { label: "books known", value: status.booksKnown },
    ],
  };
}

function cursorsBlock(status: BooksStatus): PanelBlock {
  return {
    kind: "table",
    title: "Collect cursors",
    columns: ["Job", "Query set", "Start index", "Exhausted", "Last updated", ""],
    empty: "No cursor yet: a books job has not collected anything.",
    rows: status.cursors.map((c) => [
      c.job_name,
      c.query_set_hash.slice(0, 12),
      c.start_index,
      { text: c.is_exhausted ? "yes" : "no", tone: c.is_exhausted ? "warn" : "ok" },
      c.last_updated_at,
      {
        text: "",
        button: { action: "reset-cursors", input: { job: c.job_name }, label: "Reset" },
      },
    ]),
  };
}

/** The latest digest mailed per job: when, which run, how many books. */
function digestBlock(status: BooksStatus): PanelBlock {
  return {
    kind: "table",
    title: "Last digest",
    columns: ["Job", "Sent", "Books", "Run"],
    empty: "No digest mailed yet.",
    rows: status.lastDigests.map((r) => [r.job_name, r.sent_at, r.books, r.run_id]),
  };
}

/** Runs shown in the cursor charts. */
const CHART_RUNS = 120;

/** The cursor's position after each run and whether it was exhausted, one line per job. */
function cursorCharts(runs: readonly PanelRun[]): PanelBlock[] {
  const position = (r: PanelRun) =>
    summaryNumber(r, "next_start_index") ?? summaryNumber(r, "start_index");
  const collecting = runs.filter((r) => position(r) !== null);
  const exhausted = (r: PanelRun) =>
    r.summary?.exhausted === true || r.summary?.collect === "skipped: exhausted" ? 1 : 0;
  return [
    groupedRunChart({
      title: "Cursor position (start index) after each run, per job (by run order)",
      runs: collecting,
      groupOf: (r) => r.jobName,
      measures: [{ label: "start index", value: position }],
      empty: "No books run yet.",
    }),
    groupedRunChart({
      title: "Cursor exhausted after each run (1 = yes), per job (by run order)",
      runs: collecting,
      groupOf: (r) => r.jobName,
      measures: [{ label: "exhausted", value: exhausted }],
      empty: "No books run yet.",
      y: { min: 0, max: 1, step: 1 },
    }),
  ];
}

/** The books panel: quota, cursors (with reset), their trend, and the last digest of each job. */
export const booksPanel: PanelModule = {
  async view({ services, recentRuns }: PanelServices) {
    // The books settings, validated with the books schema when the configuration was loaded.
    const books = services as BooksServices;
    const [status, runs] = await Promise.all([
      booksStatus(books),
      recentRuns({ limit: CHART_RUNS }),
    ]);
    return {
      blocks: [
        quotaBlock(status),
        cursorsBlock(status),
        ...cursorCharts(runs),
        digestBlock(status),
      ],
    };
  },
  actions: {
    "reset-cursors": {
      input: z.object({ job: z.string().min(1).max(200) }),
      confirm: (input) =>
        `Reset every collect cursor of job ${String(input.job)}? Its next run starts again at start index 0.`,
      async run(input, { services }) {
        const job = String(input.job);
        // An unknown job is a NotFoundError, as for `tidemark job cursor reset`.
        const count = await resetCommand(services, "cursors", job);
        return `Reset ${count} cursor(s) for job: ${job}`;
      },
    },
  },
};
