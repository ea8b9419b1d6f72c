import { sql } from "kysely";
import {
  groupedRunChart,
  type PanelBlock,
  type PanelModule,
  type PanelRun,
  type PanelServices,
  type PipelineServices,
  summaryNumber,
} from "tidemark";
import { typed } from "tidemark/kit";
import { z } from "zod";
import { pacificDay } from "../client/pacific-day.ts";
import { requireBooksJob, resetCursors } from "../commands/reset-command.ts";
import { CollectCursorRepo } from "../repos/cursor-repo.ts";
import type { BooksSettings } from "../settings.ts";
import type { BooksTables } from "../tables.ts";

/** What the panel's blocks read: the pipeline's services, its settings validated once. */
type BooksServices = PipelineServices<BooksSettings>;

/** Requests counted today (Google's Pacific day), over every API key. */
async function quotaBlock(services: BooksServices): Promise<PanelBlock> {
  const db = typed<BooksTables>(services.db);
  const day = pacificDay(services.clock.now());
  const row = await db
    .selectFrom("books.quota_usage")
    .select(sql<number | string | null>`sum(requests)`.as("used"))
    .where("day", "=", day)
    .executeTakeFirst();
  const used = Number(row?.used ?? 0);
  const limit = services.settings.dailyRequestLimit;
  const tone = used >= limit ? "bad" : used >= limit * 0.8 ? "warn" : "ok";
  const books = await db
    .selectFrom("books.volume")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirst();
  return {
    kind: "stats",
    items: [
      { label: `quota used today (${day}, Pacific)`, value: `${used} / ${limit}`, tone },
      { label: "books known", value: Number(books?.n ?? 0) },
    ],
  };
}

async function cursorsBlock(services: BooksServices): Promise<PanelBlock> {
  const cursors = await new CollectCursorRepo(
    typed<BooksTables>(services.db),
    services.clock,
  ).listCollectCursors();
  return {
    kind: "table",
    title: "Collect cursors",
    columns: ["Job", "Query set", "Start index", "Exhausted", "Last updated", ""],
    empty: "No cursor yet: a books job has not collected anything.",
    rows: cursors.map((c) => [
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
async function digestBlock(services: BooksServices): Promise<PanelBlock> {
  const rows = await typed<BooksTables>(services.db)
    .selectFrom("books.mail_history")
    .select(["job_name", "run_id", (eb) => eb.fn.max("sent_at").as("sent_at")])
    .select((eb) => eb.fn.countAll<number | string>().as("books"))
    .groupBy(["job_name", "run_id"])
    .execute();
  const latest = new Map<string, (typeof rows)[number]>();
  for (const r of rows) {
    const seen = latest.get(r.job_name);
    if (!seen || r.sent_at > seen.sent_at) latest.set(r.job_name, r);
  }
  return {
    kind: "table",
    title: "Last digest",
    columns: ["Job", "Sent", "Books", "Run"],
    empty: "No digest mailed yet.",
    rows: [...latest.values()]
      .sort((a, b) => a.job_name.localeCompare(b.job_name))
      .map((r) => [r.job_name, r.sent_at, Number(r.books), r.run_id]),
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
    }),
  ];
}

/** The books panel: quota, cursors (with reset), their trend, and the last digest of each job. */
export const booksPanel: PanelModule = {
  async view({ services, recentRuns }: PanelServices) {
    // The books settings, validated with the books schema when the configuration was loaded.
    const books = services as BooksServices;
    const [quota, cursors, digest, runs] = await Promise.all([
      quotaBlock(books),
      cursorsBlock(books),
      digestBlock(books),
      recentRuns({ limit: CHART_RUNS }),
    ]);
    return { blocks: [quota, cursors, ...cursorCharts(runs), digest] };
  },
  actions: {
    "reset-cursors": {
      input: z.object({ job: z.string().min(1).max(200) }),
      confirm: (input) =>
        `Reset every collect cursor of job ${String(input.job)}? Its next run starts again at start index 0.`,
      async run(input, { services }) {
        const job = String(input.job);
        // An unknown job is a NotFoundError, as for `tidemark job cursor reset`.
        await requireBooksJob(services, job);
        const count = await resetCursors(services, job);
        return `Reset ${count} cursor(s) for job: ${job}`;
      },
    },
  },
};
