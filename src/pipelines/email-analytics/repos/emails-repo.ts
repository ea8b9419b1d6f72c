import type { Kysely, Transaction } from "kysely";
import type { EmailAnalyticsTables } from "../tables.ts";
import { findInParts } from "./sql-batch.ts";

type Db = Kysely<EmailAnalyticsTables> | Transaction<EmailAnalyticsTables>;

/** The counters aggregation writes on an email. */
export interface EmailCounters {
  delivered_count: number;
  failed_count: number;
  opened_count?: number;
}

/** An email as the lists show it (the CLI's `emails`, the panel), with its counters. */
export interface EmailListed {
  id: string;
  subject: string | null;
  status: string;
  submitted_at: string;
  email_count: number;
  delivered_count: number;
  opened_count: number;
  failed_count: number;
  track_opens: number;
}

/** `emails`: whether any exists, their sizes and newsletters, and their counters. */
export class EmailsRepo {
  /** How many emails are stored. */
  async count(db: Db): Promise<number> {
    const row = await db
      .selectFrom("emails")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** The `limit` most recently submitted emails, newest first. */
  async newest(db: Db, limit: number): Promise<EmailListed[]> {
    return db
      .selectFrom("emails")
      .select([
        "id",
        "subject",
        "status",
        "submitted_at",
        "email_count",
        "delivered_count",
        "opened_count",
        "failed_count",
        "track_opens",
      ])
      .orderBy("submitted_at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
  }

  /** True once at least one email is stored. */
  async anyEmail(db: Db): Promise<boolean> {
    return (await db.selectFrom("emails").select("id").limit(1).executeTakeFirst()) !== undefined;
  }

  /** The email's recipient count (`email_count`), undefined for an unknown id. */
  async recipientCount(db: Db, emailId: string): Promise<number | undefined> {
    const row = await db
      .selectFrom("emails")
      .select("email_count")
      .where("id", "=", emailId)
      .executeTakeFirst();
    return row?.email_count;
  }

  /** The newsletter of each of these emails (absent emails left out). */
  async newsletters(
    db: Db,
    emailIds: readonly string[],
  ): Promise<Array<{ id: string; newsletter_id: string | null }>> {
    return findInParts(emailIds, (part) =>
      db.selectFrom("emails").select(["id", "newsletter_id"]).where("id", "in", part).execute(),
    );
  }

  /** Writes an email's counters. */
  async setCounters(db: Db, emailId: string, counters: EmailCounters): Promise<void> {
    await db.updateTable("emails").set(counters).where("id", "=", emailId).execute();
  }
}
