import type { Transaction } from "kysely";
import { chunks } from "tidemark/kit";
import type { EmailAnalyticsTables } from "../tables.ts";
import type { EventProcessingResult } from "./event-result.ts";
import { ROWS_PER_STATEMENT } from "./sql-batch.ts";

type Tx = Transaction<EmailAnalyticsTables>;

/** The emails and members waiting for aggregation, as stored in `email_analytics_pending`. */
export interface PendingStats {
  /** Email id → whether `opened_count` is recounted too. */
  emails: Map<string, boolean>;
  members: string[];
}

/**
 * Records a batch's emails and members as waiting for aggregation; called inside the batch's
 * fenced commit so they are durable exactly when the batch (and its watermark) is.
 */
export async function markPending(
  tx: Tx,
  result: EventProcessingResult,
  includeOpened: boolean,
): Promise<void> {
  const opened = includeOpened ? 1 : 0;
  for (const part of chunks([...result.emailIds], ROWS_PER_STATEMENT)) {
    await tx
      .insertInto("email_analytics_pending")
      .values(part.map((id) => ({ kind: "email", entity_id: id, opened })))
      .onConflict((oc) => {
        const target = oc.columns(["kind", "entity_id"]);
        // An email once touched by an opened fetch keeps its opened recount.
        return includeOpened ? target.doUpdateSet({ opened: 1 }) : target.doNothing();
      })
      .execute();
  }
  for (const part of chunks([...result.memberIds], ROWS_PER_STATEMENT)) {
    await tx
      .insertInto("email_analytics_pending")
      .values(part.map((id) => ({ kind: "member", entity_id: id, opened: 0 })))
      .onConflict((oc) => oc.columns(["kind", "entity_id"]).doNothing())
      .execute();
  }
}

/** Everything waiting for aggregation (this run's batches and any an earlier run left). */
export async function readPending(tx: Tx): Promise<PendingStats> {
  const rows = await tx.selectFrom("email_analytics_pending").selectAll().execute();
  const pending: PendingStats = { emails: new Map(), members: [] };
  for (const r of rows) {
    if (r.kind === "email") pending.emails.set(r.entity_id, Number(r.opened) === 1);
    else pending.members.push(r.entity_id);
  }
  return pending;
}

/** Removes what an aggregation recounted; called in the same commit as the recount. */
export async function clearPending(tx: Tx, pending: PendingStats): Promise<void> {
  const drop = async (kind: string, ids: readonly string[]) => {
    for (const part of chunks(ids, ROWS_PER_STATEMENT)) {
      await tx
        .deleteFrom("email_analytics_pending")
        .where("kind", "=", kind)
        .where("entity_id", "in", part)
        .execute();
    }
  };
  await drop("email", [...pending.emails.keys()]);
  await drop("member", pending.members);
}
