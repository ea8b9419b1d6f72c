import type { Transaction } from "kysely";
import { chunks } from "tidemark/kit";
import type { EmailAnalyticsTables, EmailRecipientFailureRow } from "../tables.ts";
import { ROWS_PER_STATEMENT } from "./sql-batch.ts";

type Tx = Transaction<EmailAnalyticsTables>;

/** `email_recipient_failures`: a recipient's failure row, read, inserted or overwritten. */
export class FailuresRepo {
  /** The failure rows of these recipients, in id order. */
  async ofRecipients(tx: Tx, recipientIds: readonly string[]): Promise<EmailRecipientFailureRow[]> {
    const out: EmailRecipientFailureRow[] = [];
    for (const part of chunks([...recipientIds], ROWS_PER_STATEMENT)) {
      out.push(
        ...(await tx
          .selectFrom("email_recipient_failures")
          .selectAll()
          .where("email_recipient_id", "in", part)
          .orderBy("id")
          .execute()),
      );
    }
    return out;
  }

  /** Inserts new failure rows, 200 per statement. */
  async insert(tx: Tx, rows: readonly EmailRecipientFailureRow[]): Promise<void> {
    for (const part of chunks([...rows], 200)) {
      await tx.insertInto("email_recipient_failures").values(part).execute();
    }
  }

  /** Overwrites a row's failure fields (its ids stay). */
  async update(tx: Tx, row: EmailRecipientFailureRow): Promise<void> {
    const { id, email_id: _e, member_id: _m, email_recipient_id: _r, ...fields } = row;
    await tx.updateTable("email_recipient_failures").set(fields).where("id", "=", id).execute();
  }
}
