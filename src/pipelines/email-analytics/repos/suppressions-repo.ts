import type { Transaction } from "kysely";
import { chunks } from "tidemark/kit";
import type { EmailAnalyticsTables } from "../tables.ts";

type Tx = Transaction<EmailAnalyticsTables>;

/** `suppressions` and `email_spam_complaint_events`: addresses not to mail, and why. */
export class SuppressionsRepo {
  /** Records spam complaints; one per email and member (a repeat is ignored). */
  async addComplaints(
    tx: Tx,
    rows: ReadonlyArray<EmailAnalyticsTables["email_spam_complaint_events"]>,
  ): Promise<void> {
    for (const part of chunks([...rows], 100)) {
      await tx
        .insertInto("email_spam_complaint_events")
        .values(part)
        .onConflict((oc) => oc.columns(["email_id", "member_id"]).doNothing())
        .execute();
    }
  }

  /** Puts addresses on the suppression list; an address already there keeps its first reason. */
  async suppress(tx: Tx, rows: ReadonlyArray<EmailAnalyticsTables["suppressions"]>): Promise<void> {
    for (const part of chunks([...rows], 100)) {
      await tx
        .insertInto("suppressions")
        .values(part)
        .onConflict((oc) => oc.column("email").doNothing())
        .execute();
    }
  }
}
