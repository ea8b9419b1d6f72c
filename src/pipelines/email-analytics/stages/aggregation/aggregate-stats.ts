import { sql, type Transaction } from "kysely";
import type { DialectName } from "tidemark/kit";
import { chunks } from "tidemark/kit";
import { valuesColumn, valuesTable } from "../../repos/sql-batch.ts";
import type { EmailAnalyticsTables } from "../../tables.ts";

/** Members per aggregation statement (Ghost's batched mode). */
export const MEMBERS_PER_STATEMENT = 100;

/** Open rate needs at least this many emails with open tracking. */
export const MIN_TRACKED_FOR_OPEN_RATE = 5;

type Tx = Transaction<EmailAnalyticsTables>;

/**
 * Ghost's aggregateEmailStats: `delivered_count` and `failed_count` count the email's recipients
 * with the column set; `opened_count` too, but only when the fetch asked for opened events.
 */
export async function aggregateEmailStats(
  tx: Tx,
  emailIds: Iterable<string>,
  includeOpened: boolean,
): Promise<number> {
  let count = 0;
  for (const emailId of emailIds) {
    const countSet = async (column: "delivered_at" | "opened_at" | "failed_at") => {
      const row = await tx
        .selectFrom("email_recipients")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("email_id", "=", emailId)
        .where(column, "is not", null)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    };
    const update: { delivered_count: number; failed_count: number; opened_count?: number } = {
      delivered_count: await countSet("delivered_at"),
      failed_count: await countSet("failed_at"),
    };
    if (includeOpened) update.opened_count = await countSet("opened_at");
    await tx.updateTable("emails").set(update).where("id", "=", emailId).execute();
    count += 1;
  }
  return count;
}

/** A member's figures as aggregation computes them. */
export interface MemberStats {
  emailCount: number;
  openedCount: number;
  /** Recipient rows whose email tracks opens. */
  tracked: number;
}

/** Ghost's rate: round(opened / tracked × 100) once tracked ≥ 5, else unchanged (undefined). */
export function openRate(s: MemberStats): number | undefined {
  if (s.tracked < MIN_TRACKED_FOR_OPEN_RATE) return undefined;
  return Math.round((s.openedCount / s.tracked) * 100);
}

/**
 * Ghost's batched aggregateMemberStats: per 100 members one read (email count, opened count,
 * tracked count, and the member's stored figures) and one update of the members whose figures
 * changed; `email_open_rate` is only written when tracked ≥ 5.
 */
export async function aggregateMemberStats(
  tx: Tx,
  dialect: DialectName,
  memberIds: Iterable<string>,
): Promise<number> {
  let count = 0;
  for (const part of chunks([...new Set(memberIds)], MEMBERS_PER_STATEMENT)) {
    const rows = await tx
      .selectFrom("members as m")
      .leftJoin("email_recipients as r", "r.member_id", "m.id")
      .leftJoin("emails as e", "e.id", "r.email_id")
      .select((eb) => [
        "m.id",
        "m.email_count as stored_count",
        "m.email_opened_count as stored_opened",
        "m.email_open_rate as stored_rate",
        eb.fn.count<number | string>("r.id").as("email_count"),
        eb.fn.count<number | string>("r.opened_at").as("opened"),
        sql<number | string>`sum(case when e.track_opens = 1 then 1 else 0 end)`.as("tracked"),
      ])
      .where("m.id", "in", part)
      .groupBy(["m.id", "m.email_count", "m.email_opened_count", "m.email_open_rate"])
      .execute();
    const changed: Array<[string, number, number, number | null]> = [];
    for (const r of rows) {
      const stats: MemberStats = {
        emailCount: Number(r.email_count),
        openedCount: Number(r.opened ?? 0),
        tracked: Number(r.tracked ?? 0),
      };
      const rate = openRate(stats) ?? r.stored_rate;
      if (
        stats.emailCount !== Number(r.stored_count) ||
        stats.openedCount !== Number(r.stored_opened) ||
        rate !== r.stored_rate
      ) {
        changed.push([r.id, stats.emailCount, stats.openedCount, rate]);
      }
    }
    if (changed.length > 0) {
      await sql`update members set email_count = ${valuesColumn(dialect, "integer", "column2")}, email_opened_count = ${valuesColumn(dialect, "integer", "column3")}, email_open_rate = ${valuesColumn(dialect, "integer", "column4")} from ${valuesTable(changed)} where members.id = v.column1`.execute(
        tx,
      );
    }
    count += part.length;
  }
  return count;
}
