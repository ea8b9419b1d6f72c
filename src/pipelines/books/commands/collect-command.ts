import { type CliServices, NotFoundError, type RunJobReport, UsageError } from "tidemark";
import { interruptSignal } from "tidemark/kit";
import type { BooksSettings } from "../settings.ts";

/** What `books collect` takes besides the job's name. */
export interface CollectOptions {
  dryRun?: boolean;
  limit?: string;
  json?: boolean;
}

function parseLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new UsageError(
      `--limit must be a whole number of at least 1, got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/** The run's outcome in a few lines: status, how far the cursor went, what was mailed. */
function describeRun(report: RunJobReport): string[] {
  const s = report.summary;
  const lines = [`${report.jobName}: ${report.status} (run ${report.runId})`];
  if (s.collect !== undefined) lines.push(`collect: ${String(s.collect)}`);
  else if (s.stop_reason !== undefined) {
    lines.push(
      `collect: ${s.items} item(s) from startIndex ${s.start_index}, next startIndex ${s.next_start_index} (stopped: ${s.stop_reason}); ${s.new_books} new book(s), ${s.new_for_job} new for the job`,
    );
  }
  if (s.mail !== undefined) lines.push(`mail: ${String(s.mail)}`);
  if (report.error) lines.push(`error: ${report.error}`);
  return lines;
}

/**
 * `tidemark books collect <job-name>`: runs the stored `books.run` job now with its stored
 * params, through the engine (its lease, recorded in tm_runs), and prints where its cursor went.
 * Exit 1 when the run failed, 2 when it failed on a usage or config error.
 */
export async function collectCommand(
  cli: CliServices,
  jobName: string,
  opts: CollectOptions,
): Promise<void> {
  const limit = parseLimit(opts.limit);
  const services = await cli.services<BooksSettings>();
  const job = await services.jobs.get(jobName);
  if (job?.type !== "books.run") {
    throw new NotFoundError(
      job
        ? `job ${jobName} is a ${job.type} job, not books.run`
        : `unknown job ${JSON.stringify(jobName)}: no stored job has that name (add a books.run job first, as docs/pipelines/books.md shows)`,
    );
  }
  const interrupt = interruptSignal();
  let report: RunJobReport;
  try {
    report = await services.runJob({
      job: jobName,
      type: "books.run",
      params: job.params,
      dryRun: opts.dryRun === true,
      ...(limit === undefined ? {} : { limit }),
      signal: interrupt.signal,
      callerReportsOutcome: true,
    });
  } finally {
    interrupt.dispose();
  }
  if (opts.json) cli.printJson(report);
  else for (const line of describeRun(report)) cli.print(line);
  if (report.status === "failed") cli.setExitCode(report.exitCode ?? 1);
}
