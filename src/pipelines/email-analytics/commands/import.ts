import path from "node:path";
import type { CommandSpec } from "tidemark";

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
    const { importFile, importLines } = await import("../import/run-import.ts");
    const { db, clock } = await services.services();
    const file = path.resolve(services.cwd, String(args.file));
    const result = await importFile(db, clock, file, {
      table: options.table as string | undefined,
      dryRun: options.dryRun === true,
    });
    if (options.json) services.printJson(result);
    else for (const line of importLines(result)) services.print(line);
  },
};
