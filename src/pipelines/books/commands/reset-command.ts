import { NotFoundError, type PipelineServices } from "tidemark";
import { typed } from "tidemark/kit";
import { CollectCursorRepo } from "../repos/cursor-repo.ts";
import { MailHistoryRepo } from "../repos/mail-history-repo.ts";
import type { BooksTables } from "../tables.ts";

/** The stores the resets touch: the database and the clock (cursor timestamps). */
type BooksStores = Pick<PipelineServices, "db" | "clock">;

/** The repositories a reset reads and deletes through, built once per command. */
interface ResetRepos {
  cursors: CollectCursorRepo;
  mailHistory: MailHistoryRepo;
}

function resetRepos(services: BooksStores): ResetRepos {
  const db = typed<BooksTables>(services.db);
  return {
    cursors: new CollectCursorRepo(db, services.clock),
    mailHistory: new MailHistoryRepo(db),
  };
}

/**
 * `job cursor reset` / `mail reset`: once `jobName` is known to books, deletes the job's cursors
 * or mail history and returns the count.
 */
export async function resetCommand(
  services: Pick<PipelineServices, "db" | "clock" | "jobs">,
  what: "cursors" | "mail",
  jobName: string,
): Promise<number> {
  const repos = resetRepos(services);
  await requireBooksJob(services, repos, jobName);
  return what === "cursors"
    ? resetCursors(services, jobName, repos)
    : resetMailHistory(services, jobName, repos);
}

/**
 * Resolves once `jobName` is known to books: a `books.run` job, or a name that still has
 * cursors or mail history (a removed job's state can be reset). Otherwise NotFoundError (exit 2).
 */
async function requireBooksJob(
  services: Pick<PipelineServices, "jobs">,
  repos: ResetRepos,
  jobName: string,
): Promise<void> {
  const all = await services.jobs.list();
  const books = all.filter((j) => j.type === "books.run").map((j) => j.name);
  if (books.includes(jobName)) return;
  const [cursors, mailed] = await Promise.all([
    repos.cursors.listCollectCursors(jobName),
    repos.mailHistory.countForJob(jobName),
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
export function resetCursors(
  services: BooksStores,
  jobName: string,
  repos: ResetRepos = resetRepos(services),
): Promise<number> {
  return repos.cursors.resetCollectCursorsByJob(jobName);
}

/** Deletes the job's mail history; returns the count. */
export function resetMailHistory(
  services: BooksStores,
  jobName: string,
  repos: ResetRepos = resetRepos(services),
): Promise<number> {
  return repos.mailHistory.resetByJob(jobName);
}
