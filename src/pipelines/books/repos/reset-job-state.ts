import type { Runtime } from "../../../engine/runtime/runtime.ts";
import { typed } from "../../../infra/db/open-database.ts";
import { CollectCursorRepo } from "../cursor/cursor-repo.ts";
import { MailHistoryRepo } from "../repos/mail-history-repo.ts";
import type { BooksTables } from "../tables.ts";

/** Deletes every cursor of the job (all query sets); returns the count. */
export function resetCursors(runtime: Runtime, jobName: string): Promise<number> {
  return new CollectCursorRepo(
    typed<BooksTables>(runtime.db),
    runtime.clock,
  ).resetCollectCursorsByJob(jobName);
}

/** Deletes the job's mail history; returns the count. */
export function resetMailHistory(runtime: Runtime, jobName: string): Promise<number> {
  return new MailHistoryRepo(typed<BooksTables>(runtime.db)).resetByJob(jobName);
}
