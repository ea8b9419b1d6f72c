import { JobService, NotFoundError, type Runtime, typed } from "../../../engine/index.ts";
import { CollectCursorRepo } from "../cursor/cursor-repo.ts";
import type { BooksTables } from "../tables.ts";
import { MailHistoryRepo } from "./mail-history-repo.ts";

/**
 * The runtime, once `jobName` is known to books: a `books.run` job, or a name that still has
 * cursors or mail history (a removed job's state can be reset). Otherwise NotFoundError (exit 2).
 */
export async function requireJobOfType(runtime: Runtime, jobName: string): Promise<Runtime> {
  const jobs = new JobService(runtime.db, runtime.registry, runtime.clock);
  const all = await jobs.repo.list();
  const books = all.filter((j) => j.type === "books.run").map((j) => j.name);
  if (books.includes(jobName)) return runtime;
  const db = typed<BooksTables>(runtime.db);
  const [cursors, mailed] = await Promise.all([
    new CollectCursorRepo(db, runtime.clock).listCollectCursors(jobName),
    new MailHistoryRepo(db).countForJob(jobName),
  ]);
  if (cursors.length > 0 || mailed > 0) return runtime;
  const other = all.find((j) => j.name === jobName);
  throw new NotFoundError(
    other
      ? `job ${jobName} is a ${other.type} job, not books.run`
      : `unknown job ${JSON.stringify(jobName)}: no books.run job or books state by that name; books jobs: ${books.join(", ") || "(none)"}`,
  );
}

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
