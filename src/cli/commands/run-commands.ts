import type { Command } from "commander";
import { NotFoundError } from "../../engine/errors.ts";
import { interruptSignal } from "../../engine/runs/interrupt-signal.ts";
import type { RunReport } from "../../engine/runs/job-runner.ts";
import { positiveInt } from "../option-parsers.ts";
import { readableSummary } from "../output/summary-text.ts";
import type { CliSession } from "../session.ts";

/** The summary as its job type describes it, else as aligned `key: value` lines. */
function summaryText(session: CliSession, r: RunReport): string[] {
  const type = session.registry.jobTypeNames().includes(r.jobType)
    ? session.registry.jobType(r.jobType)
    : undefined;
  if (type?.summaryLines && Object.keys(r.summary).length > 0) {
    try {
      return type.summaryLines(r.summary).map((line) => `  ${line}`);
    } catch {
      // A summary the type cannot read (e.g. an older shape): the generic form still shows it.
    }
  }
  return readableSummary(r.summary);
}

function printReport(session: CliSession, r: RunReport): void {
  session.print(`${r.jobName}: ${r.status} (run ${r.runId})`);
  if (r.error) session.print(`  error: ${r.error}`);
  for (const line of summaryText(session, r)) session.print(line);
}

/** Options of `tidemark run`. */
type RunOptions = { dryRun?: boolean; limit?: number; json?: boolean; queue?: boolean };

/** `tidemark run <job>` and `tidemark run-due`. */
export function registerRunCommands(program: Command, session: CliSession): void {
  program
    .command("run <job>")
    .description("run a job now (exit 0 ok, 1 failed, 3 already running)")
    .option("--dry-run", "do everything except the writes the job type defines as side effects")
    .option("--limit <n>", "process at most n targets", positiveInt)
    .option("--json", "print the run report as JSON")
    .option("--queue", "queue the run for a worker (tidemark worker) and print the message id")
    .action(async (name: string, opts: RunOptions) => {
      if (await session.nothingStoredYet()) {
        throw new NotFoundError(`unknown job ${JSON.stringify(name)}`);
      }
      const runtime = await session.runtime();
      if (opts.queue) {
        const { requestRunFromCli } = await import(
          "../../engine/run-requests/request-run-from-cli.ts"
        );
        const request = { job: name, dryRun: opts.dryRun, limit: opts.limit };
        const queued = await requestRunFromCli(runtime, request);
        if (opts.json) {
          session.printJson({ job: name, queue: queued.queue, messageId: queued.messageId });
        } else session.print(`${name}: queued (message ${queued.messageId})`);
        return;
      }
      const [{ runStoredJob }, { exitCodeFor }] = await Promise.all([
        import("../../engine/runs/run-stored-job.ts"),
        import("../../engine/runs/job-runner.ts"),
      ]);
      const interrupt = interruptSignal();
      try {
        const report = await runStoredJob(runtime, name, {
          dryRun: opts.dryRun,
          limit: opts.limit,
          signal: interrupt.signal,
          // A bar on a terminal, a line every few seconds otherwise.
          progress: !opts.json,
          callerReportsOutcome: true,
        });
        if (opts.json) session.printJson(report);
        else printReport(session, report);
        session.exitCode = exitCodeFor(report);
      } finally {
        interrupt.dispose();
      }
    });

  program
    .command("run-due")
    .description("run every enabled job whose schedule is due, one after another")
    .option("--dry-run", "pass dry-run to every job")
    .option("--json", "print the outcomes as JSON")
    .action(async (opts: { dryRun?: boolean; json?: boolean }) => {
      const runtime = await session.runtime();
      const { runDue } = await import("../../engine/runs/run-due.ts");
      const interrupt = interruptSignal();
      try {
        const outcomes = await runDue(runtime, {
          dryRun: opts.dryRun,
          signal: interrupt.signal,
          // A bar on a terminal, a line every few seconds otherwise.
          progress: !opts.json,
        });
        if (opts.json) session.printJson(outcomes);
        else if (outcomes.length === 0) session.print("Nothing due.");
        for (const o of opts.json ? [] : outcomes) {
          if (o.outcome === "ran") printReport(session, o.report);
          else
            session.print(
              `${o.job}: ${o.outcome === "already-running" ? "skipped" : "error"}: ${o.error}`,
            );
        }
        const failed = outcomes.some(
          (o) => o.outcome === "error" || (o.outcome === "ran" && o.report.status === "failed"),
        );
        session.exitCode = failed ? 1 : 0;
      } finally {
        interrupt.dispose();
      }
    });
}
