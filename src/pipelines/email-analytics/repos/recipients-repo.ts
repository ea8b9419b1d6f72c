import { type Kysely, sql, type Transaction } from "kysely";
import { chunks, type DialectName } from "tidemark/kit";
import type { EmailAnalyticsTables } from "../tables.ts";
import { findInParts, ROWS_PER_STATEMENT, updateColumnById } from "./sql-batch.ts";

type Db = Kysely<EmailAnalyticsTables> | Transaction<EmailAnalyticsTables>;

/** One of the event timestamps of `email_recipients`. */
export type RecipientColumn = "delivered_at" | "opened_at" | "failed_at";

/** A recipient row as the event applier reads it. */
export interface RecipientRow {
  id: string;
  member_id: string;
  member_email: string;
  delivered_at: unknown;
  opened_at: unknown;
  failed_at: unknown;
}

/** `email_recipients` and `email_batches`: who got an email, and the event timestamps. */
export class RecipientsRepo {
  constructor(private readonly dialect: DialectName) {}

  /** The email id of each batch whose `provider_id` (Mailgun message id) is given. */
  async emailIdsByProvider(
    db: Db,
    providerIds: readonly string[],
  ): Promise<Array<{ provider_id: string | null; email_id: string }>> {
    return findInParts(providerIds, (part) =>
      db
        .selectFrom("email_batches")
        .select(["provider_id", "email_id"])
        .where("provider_id", "in", part)
        .execute(),
    );
  }

  /** The recipients of one email in id order: all of them, or those with these addresses. */
  async recipientsOf(
    db: Db,
    emailId: string,
    addresses?: readonly string[],
  ): Promise<RecipientRow[]> {
    const query = db
      .selectFrom("email_recipients")
      .select(["id", "member_id", "member_email", "delivered_at", "opened_at", "failed_at"])
      .where("email_id", "=", emailId)
      .orderBy("id");
    if (!addresses) return query.execute();
    const out: RecipientRow[] = [];
    for (const part of chunks([...addresses], ROWS_PER_STATEMENT)) {
      out.push(...(await query.where("member_email", "in", part).execute()));
    }
    return out;
  }

  /** The latest value of a timestamp column over every recipient (undefined when none). */
  async latest(db: Db, column: RecipientColumn): Promise<Date | undefined> {
    const row = await db
      .selectFrom("email_recipients")
      .select(sql<string | null>`max(${sql.ref(column)})`.as("m"))
      .executeTakeFirst();
    return row?.m ? new Date(row.m) : undefined;
  }

  /** How many of the email's recipients have `column` set. */
  async countWith(db: Db, emailId: string, column: RecipientColumn): Promise<number> {
    const row = await db
      .selectFrom("email_recipients")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("email_id", "=", emailId)
      .where(column, "is not", null)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Sets `column` (recipient id → ISO time) where it is still NULL. */
  async setTimestamps(
    tx: Transaction<EmailAnalyticsTables>,
    column: RecipientColumn,
    values: ReadonlyMap<string, string>,
  ): Promise<void> {
    await updateColumnById(tx, this.dialect, "email_recipients", column, "timestamp", values, true);
  }
}
