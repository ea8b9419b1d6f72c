import { type CliServices, type CommandSpec, UsageError } from "tidemark";

/** Refuses to go on without `--yes`: these commands delete state the next run depends on. */
function requireYes(options: Record<string, unknown>, what: string): void {
  if (!options.yes) throw new UsageError(`refusing to reset ${what} without --yes`);
}

/** The pipeline's services, once `jobName` is known to books (NotFoundError otherwise). */
async function requireBooksJob(cli: CliServices, jobName: string) {
  const { requireBooksJob: check } = await import("./commands/reset-command.ts");
  const services = await cli.services();
  await check(services, jobName);
  return services;
}

/**
 * `tidemark job cursor reset <job-name> --yes` (under the engine's `job` group) and
 * `tidemark mail reset <job-name> --yes`. Actions load their implementation lazily.
 */
export const booksCommands: readonly CommandSpec[] = [
  {
    path: ["job", "cursor", "reset"],
    description: "delete every collect cursor of the job: the next run starts at startIndex 0",
    args: [{ name: "job-name" }],
    options: [{ flags: "--yes", description: "confirm the reset (required)" }],
    async action({ args, options }, cli) {
      const jobName = String(args["job-name"]);
      requireYes(options, `the cursors of job ${jobName}`);
      const services = await requireBooksJob(cli, jobName);
      const { resetCursors } = await import("./commands/reset-command.ts");
      const count = await resetCursors(services, jobName);
      cli.print(`Reset ${count} cursor(s) for job: ${jobName}`);
    },
  },
  {
    path: ["mail", "reset"],
    description: "forget what was mailed to the job: its next digests may repeat books",
    args: [{ name: "job-name" }],
    options: [{ flags: "--yes", description: "confirm the reset (required)" }],
    async action({ args, options }, cli) {
      const jobName = String(args["job-name"]);
      requireYes(options, `the mail history of job ${jobName}`);
      const services = await requireBooksJob(cli, jobName);
      const { resetMailHistory } = await import("./commands/reset-command.ts");
      const count = await resetMailHistory(services, jobName);
      cli.print(`Reset ${count} mail history record(s) for job: ${jobName}`);
    },
  },
];
