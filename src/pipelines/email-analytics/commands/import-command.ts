import path from "node:path";
import type { CliServices } from "tidemark";
import { importFile, importLines } from "../stages/import/run-import.ts";

/**
 * `tidemark email-analytics import <file> [--table <table>] [--dry-run] [--json]`: loads what was
 * sent (members, newsletter subscriptions, emails, batches, recipients) with Ghost's column names.
 */
export async function importCommand(
  file: string,
  options: Readonly<Record<string, unknown>>,
  services: CliServices,
): Promise<void> {
  const { db, clock } = await services.services();
  const result = await importFile(db, clock, path.resolve(services.cwd, file), {
    table: options.table as string | undefined,
    dryRun: options.dryRun === true,
  });
  if (options.json) services.printJson(result);
  else for (const line of importLines(result)) services.print(line);
}
