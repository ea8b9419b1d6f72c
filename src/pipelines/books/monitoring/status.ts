import type { PipelineServices } from "tidemark";
import { typed } from "tidemark/kit";
import { pacificDay } from "../client/pacific-day.ts";
import { BookRepo } from "../repos/book-repo.ts";
import { type CollectCursor, CollectCursorRepo } from "../repos/cursor-repo.ts";
import { type LastDigest, MailHistoryRepo } from "../repos/mail-history-repo.ts";
import { quotaUsedOnDay } from "../repos/quota-repo.ts";
import type { BooksSettings } from "../settings.ts";
import type { BooksTables } from "../tables.ts";

/** The books pipeline's state: today's quota, the books known, the cursors, the last digests. */
export interface BooksStatus {
  quota: {
    /** Google's quota day (`YYYY-MM-DD`, America/Los_Angeles) it is now. */
    day: string;
    /** Requests counted that day, over every API key. */
    used: number;
    /** `dailyRequestLimit`. */
    limit: number;
  };
  /** Books stored, over every job. */
  booksKnown: number;
  /** Every collect cursor of every job. */
  cursors: CollectCursor[];
  /** The latest digest mailed to each job, by job name. */
  lastDigests: LastDigest[];
}

/** What status reads: the tables, the clock and the daily request limit. */
export type BooksStatusServices = Pick<
  PipelineServices<Pick<BooksSettings, "dailyRequestLimit">>,
  "db" | "clock" | "settings"
>;

/** Reads the books pipeline's status (the panel shows it). */
export async function booksStatus(services: BooksStatusServices): Promise<BooksStatus> {
  const db = typed<BooksTables>(services.db);
  const day = pacificDay(services.clock.now());
  const [used, booksKnown, cursors, lastDigests] = await Promise.all([
    quotaUsedOnDay(db, day),
    new BookRepo(db).countAll(),
    new CollectCursorRepo(db, services.clock).listCollectCursors(),
    new MailHistoryRepo(db).latestDigests(),
  ]);
  return {
    quota: { day, used, limit: services.settings.dailyRequestLimit },
    booksKnown,
    cursors,
    lastDigests,
  };
}
