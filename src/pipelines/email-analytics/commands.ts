/**
 * `tidemark email-analytics …` command descriptors; actions load their implementation lazily.
 */
import type { CommandGroupSpec, CommandSpec } from "tidemark";
import type { EmailAnalyticsSettings } from "./settings.ts";

/** The `email-analytics` group in `tidemark --help`. */
export const emailAnalyticsCommandGroups: readonly CommandGroupSpec[] = [
  {
    path: ["email-analytics"],
    description: "Mailgun email analytics (Ghost's tables): import, status, schedule, stats",
  },
];

/**
 * `tidemark email-analytics import <file> [--table <table>] [--dry-run] [--json]`: loads what was
 * sent (members, newsletter subscriptions, emails, batches, recipients) with Ghost's column names.
 */
export const emailAnalyticsImportCommand: CommandSpec = {
  path: ["email-analytics", "import"],
  description:
    "load members, newsletter subscriptions, emails, batches and recipients (NDJSON, or CSV of one table with --table); importing again changes nothing",
  args: [{ name: "file", description: "NDJSON with a type per line, or CSV with --table" }],
  options: [
    {
      flags: "--table <table>",
      description:
        "the file is a CSV of this table (members, members_newsletters, emails, email_batches, email_recipients) with Ghost's column names as its header",
    },
    { flags: "--dry-run", description: "check the file, write nothing" },
    { flags: "--json", description: "print the counts as JSON" },
  ],
  async action({ args, options }, services) {
    const { importCommand } = await import("./commands/import-command.ts");
    await importCommand(String(args.file), options, services);
  },
};

/** import, status, schedule, stats. */
export const emailAnalyticsCommands: readonly CommandSpec[] = [
  emailAnalyticsImportCommand,
  {
    path: ["email-analytics", "status"],
    description:
      "the four fetch job rows (status, watermark, lag), whether a fetch is running, the backfill",
    options: [{ flags: "--json", description: "print JSON" }],
    async action({ options }, services) {
      const { emailAnalyticsStatus, statusLines } = await import("./monitoring/status.ts");
      const status = await emailAnalyticsStatus(await services.services<EmailAnalyticsSettings>());
      if (options.json) services.printJson(status);
      else for (const line of statusLines(status)) services.print(line);
    },
  },
  {
    path: ["email-analytics", "schedule"],
    description:
      "schedule a backfill of Mailgun events between two times (--begin, --end), or --cancel it",
    options: [
      {
        flags: "--begin <time>",
        description: "start of the range (ISO-8601, e.g. 2026-01-31T00:00:00Z)",
      },
      { flags: "--end <time>", description: "end of the range (ISO-8601)" },
      { flags: "--cancel", description: "cancel the scheduled backfill (a running one stops)" },
    ],
    async action({ options }, services) {
      const { scheduleCommand } = await import("./commands/schedule-command.ts");
      await scheduleCommand(options, services);
    },
  },
  {
    path: ["email-analytics", "stats"],
    description: "an email's counts: sent, delivered, opened, failed, failures, complaints",
    args: [{ name: "email-id" }],
    options: [{ flags: "--json", description: "print JSON" }],
    async action({ args, options }, services) {
      const { emailStats, emailStatsLines } = await import("./repos/email-stats.ts");
      const stats = await emailStats(await services.services(), String(args["email-id"]));
      if (options.json) services.printJson(stats);
      else for (const line of emailStatsLines(stats)) services.print(line);
    },
  },
  {
    path: ["email-analytics", "emails"],
    description: "stored emails, newest first: the ids email-analytics stats takes",
    options: [
      { flags: "--limit <n>", description: "emails to show (default 20)" },
      { flags: "--json", description: "print JSON" },
    ],
    async action({ options }, services) {
      const { emailsCommand } = await import("./commands/emails-command.ts");
      await emailsCommand(services, options);
    },
  },
];
