import { type CommandSpec, UsageError } from "tidemark";

/** Refuses to go on without `--yes`: these commands delete state the next run depends on. */
function requireYes(options: Record<string, unknown>, what: string): void {
  if (!options.yes) throw new UsageError(`refusing to reset ${what} without --yes`);
}

/**
 * `tidemark books collect <job-name>`, `tidemark job cursor reset <job-name> --yes` (under the
 * engine's `job` group) and `tidemark mail reset <job-name> --yes`. Actions load their
 * implementation lazily.
 */
export const booksCommands: readonly CommandSpec[] = [
  {
    path: ["books", "collect"],
    description:
      "run a books.run job now (Collect → Upsert → Select → Mail) and print where its cursor went",
    args: [{ name: "job-name" }],
    options: [
      {
        flags: "--dry-run",
        description: "collect and save, but print the digest instead of mailing it",
      },
      { flags: "--limit <n>", description: "collect at most n items in this run" },
      { flags: "--json", description: "print the run's report as JSON" },
    ],
    async action({ args, options }, cli) {
      const { collectCommand } = await import("./commands/collect-command.ts");
      await collectCommand(cli, String(args["job-name"]), {
        dryRun: options.dryRun === true,
        limit: options.limit === undefined ? undefined : String(options.limit),
        json: options.json === true,
      });
    },
  },
  {
    path: ["job", "cursor", "reset"],
    description: "delete every collect cursor of the job: the next run starts at startIndex 0",
    args: [{ name: "job-name" }],
    options: [{ flags: "--yes", description: "confirm the reset (required)" }],
    async action({ args, options }, cli) {
      const jobName = String(args["job-name"]);
      requireYes(options, `the cursors of job ${jobName}`);
      const { resetCommand } = await import("./commands/reset-command.ts");
      const count = await resetCommand(await cli.services(), "cursors", jobName);
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
      const { resetCommand } = await import("./commands/reset-command.ts");
      const count = await resetCommand(await cli.services(), "mail", jobName);
      cli.print(`Reset ${count} mail history record(s) for job: ${jobName}`);
    },
  },
];
