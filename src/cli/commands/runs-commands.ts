import type { Command } from "commander";
import { NotFoundError, UsageError } from "../../engine/errors.ts";
import type { RunFilter, RunRecord } from "../../engine/runs/run-repo.ts";
import { positiveInt } from "../option-parsers.ts";
import { terminalWidth } from "../output/fit-text.ts";
import { duration, runsTable } from "../output/runs-table.ts";
import { jsonWithTextBlocks, textBlock } from "../output/summary-text.ts";
import type { CliSession } from "../session.ts";

const STATUSES = ["running", "succeeded", "failed", "skipped", "abandoned"] as const;

/**
 * Reads runs as they stand now: a crashed run still recorded `running` shows `abandoned`, yet
 * nothing is written (the runner, the `serve`/`worker` sweep and `db gc` record it).
 */
async function liveness(session: CliSession) {
  const runtime = await session.runtime();
  const { listRunsAsOfNow, runAsOfNow } = await import("../../engine/runs/run-liveness.ts");
  const { RunRepo } = await import("../../engine/runs/run-repo.ts");
  return {
    list: (filter: RunFilter) => listRunsAsOfNow(runtime, filter),
    async get(runId: string): Promise<RunRecord | undefined> {
      const run = await new RunRepo(runtime.db).get(runId);
      return run && runAsOfNow(runtime, run);
    },
  };
}

/** "label 40/100  changed 3" from a run's stored progress. */
function progressText(p: NonNullable<RunRecord["progress"]>): string {
  const figures = Object.entries(p.figures).map(([k, v]) => `  ${k} ${v}`);
  return `${p.label} ${p.done}/${p.total ?? "?"}${figures.join("")} (at ${p.updated_at})`;
}

/** `tidemark runs ls | show`. */
export function registerRunsCommands(program: Command, session: CliSession): void {
  const runs = program.command("runs").description("run history");

  runs
    .command("ls")
    .description("list runs, newest first")
    .option("--job <name>", "only this job's runs")
    .option("--status <status>", `only runs with this status (${STATUSES.join("|")})`)
    .option("--limit <n>", "how many", positiveInt, 20)
    .option("--json", "machine-readable output")
    .action(async (opts: { job?: string; status?: string; limit: number; json?: boolean }) => {
      if (opts.status && !(STATUSES as readonly string[]).includes(opts.status)) {
        throw new UsageError(`--status ${opts.status}: expected one of ${STATUSES.join(", ")}`);
      }
      const list = await (await liveness(session)).list({
        jobName: opts.job,
        status: opts.status as RunRecord["status"] | undefined,
        limit: opts.limit,
      });
      if (opts.json) return session.printJson(list);
      if (list.length === 0) return session.print("No runs.");
      // Off a terminal every column stays (scripts read the job column); the error is cut.
      session.print(runsTable(list, terminalWidth(session.io), !session.io.isTTY));
    });

  runs
    .command("show <run_id>")
    .description("show one run with its summary")
    .option("--json", "machine-readable output")
    .action(async (runId: string, opts: { json?: boolean }) => {
      const run = (await session.nothingStoredYet())
        ? undefined
        : await (await liveness(session)).get(runId);
      if (!run) throw new NotFoundError(`unknown run ${JSON.stringify(runId)}`);
      if (opts.json) return session.printJson(run);
      session.print(`run_id:    ${run.runId}`);
      session.print(`job:       ${run.jobName} (${run.jobType})`);
      session.print(`status:    ${run.status}${run.dryRun ? " (dry run)" : ""}`);
      session.print(`started:   ${run.startedAt}`);
      session.print(`finished:  ${run.finishedAt ?? "-"} (${duration(run)})`);
      session.print(`host/pid:  ${run.host}/${run.pid}`);
      if (run.progress) session.print(`progress:  ${progressText(run.progress)}`);
      if (run.error?.includes("\n"))
        session.print(["error:", ...textBlock(run.error, "    ")].join("\n"));
      else if (run.error) session.print(`error:     ${run.error}`);
      // Multi-line text (a digest, a report) reads as text below the JSON, not as "\n" escapes.
      const { json, blocks } = jsonWithTextBlocks(run.summary ?? {});
      session.print(`summary:   ${json}`);
      for (const line of blocks) session.print(line);
    });
}
