import type { Command } from "commander";
import { UsageError } from "../../../engine/errors.ts";
import type { CliServices } from "../../../engine/registry/pipeline-definition.ts";

/**
 * `tidemark job cursor reset <job-name> --yes` (seed §3 Step 6, under the engine's `job` group)
 * and `tidemark mail reset <job-name> --yes`. Actions load their implementation lazily.
 */
export function registerBooksCli(program: Command, services: CliServices): void {
  const job = program.commands.find((c) => c.name() === "job");
  if (job) {
    const cursor = job
      .command("cursor")
      .description("collect cursors (Google Books paging state) of books jobs");
    cursor
      .command("reset <job-name>")
      .description("delete every collect cursor of the job: the next run starts at startIndex 0")
      .option("--yes", "confirm the reset (required)")
      .action(async (jobName: string, opts: { yes?: boolean }) => {
        if (!opts.yes) {
          throw new UsageError(`refusing to reset the cursors of job ${jobName} without --yes`);
        }
        const { resetCursors } = await import("./reset-actions.ts");
        const count = await resetCursors(await services.runtime(), jobName);
        services.print(`Reset ${count} cursor(s) for job: ${jobName}`);
      });
  }

  const mail = program.command("mail").description("mail history of digest jobs");
  mail
    .command("reset <job-name>")
    .description("forget what was mailed to the job: its next digests may repeat books")
    .option("--yes", "confirm the reset (required)")
    .action(async (jobName: string, opts: { yes?: boolean }) => {
      if (!opts.yes) {
        throw new UsageError(`refusing to reset the mail history of job ${jobName} without --yes`);
      }
      const { resetMailHistory } = await import("./reset-actions.ts");
      const count = await resetMailHistory(await services.runtime(), jobName);
      services.print(`Reset ${count} mail history record(s) for job: ${jobName}`);
    });
}
