import { NotFoundError, type PipelineServices } from "tidemark";
import { typed } from "tidemark/kit";
import { CollectCursorRepo } from "../repos/cursor-repo.ts";
import { MailHistoryRepo } from "../repos/mail-history-repo.ts";
import type { BooksTables } from "../tables.ts";

/** The stores the resets touch: the database and the clock (cursor timestamps). */
type BooksStores = Pick<PipelineServices, "db" | "clock">;

/**
 * Resolves once `jobName` is known to books: a `books.run` job, or a name that still has
 * cursors or mail history (a removed job's state can be reset). Otherwise NotFoundError (exit 2).
 */
export async function requireBooksJob(
  services: Pick<PipelineServices, "db" | "clock" | "jobs">,
  jobName: string,
): Promise<void> {
  const all = await services.jobs.list();
  const books = all.filter((j) => j.type === "books.run").map((j) => j.name);
  if (books.includes(jobName)) return;
  const db = typed<BooksTables>(services.db);
  const [cursors, mailed] = await Promise.all([
    new CollectCursorRepo(db, services.clock).listCollectCursors(jobName),
    new MailHistoryRepo(db).countForJob(jobName),
  ]);
  if (cursors.length > 0 || mailed > 0) return;
  const other = all.find((j) => j.name === jobName);
  throw new NotFoundError(
    other
      ? `job ${jobName} is a ${other.type} job, not books.run`
      : `unknown job ${JSON.stringify(jobName)}: no books.run job or books state by that name; books jobs: ${books.join(", ") || "(none)"}`,
  );
}

/** Deletes every cursor of the job (all query sets); returns the count. */
export function resetCursors(services: BooksStores, jobName: string): Promise<number> {
  return new CollectCursorRepo(
    typed<BooksTables>(services.db),
    services.clock,
  ).resetCollectCursorsByJob(jobName);
}

/** Deletes the job's mail history; returns the count. */
export function resetMailHistory(services: BooksStores, jobName: string): Promise<number> {
  return new MailHistoryRepo(typed<BooksTables>(services.db)).resetByJob(jobName);
}
