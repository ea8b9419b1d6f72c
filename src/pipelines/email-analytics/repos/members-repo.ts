import { sql, type Transaction } from "kysely";
import { chunks, type DialectName } from "tidemark/kit";
import type { EmailAnalyticsTables } from "../tables.ts";
import {
  findInParts,
  ROWS_PER_STATEMENT,
  updateColumnById,
  valuesColumn,
  valuesTable,
} from "./sql-batch.ts";

type Tx = Transaction<EmailAnalyticsTables>;

/** A member's stored figures next to the ones counted from its recipient rows. */
export interface MemberFiguresRow {
  id: string;
  stored_count: number;
  stored_opened: number;
  stored_rate: number | null;
  email_count: number | string;
  opened: number | string;
  tracked: number | string;
}

/** New figures of one member: id, email count, opened count, open rate. */
export type MemberFigures = [string, number, number, number | null];

/** `members` and `members_newsletters`: what events and aggregation change on a member. */
export class MembersRepo {
  constructor(private readonly dialect: DialectName) {}

  /** The members' `last_seen_at` (absent members left out). */
  async lastSeen(
    tx: Tx,
    memberIds: readonly string[],
  ): Promise<Array<{ id: string; last_seen_at: string | null }>> {
    return findInParts(memberIds, (part) =>
      tx.selectFrom("members").select(["id", "last_seen_at"]).where("id", "in", part).execute(),
    );
  }

  /** Writes `last_seen_at` (member id → ISO time). */
  async setLastSeen(tx: Tx, values: ReadonlyMap<string, string>): Promise<void> {
    await updateColumnById(tx, this.dialect, "members", "last_seen_at", "timestamp", values, false);
  }

  /** Turns email off for these members (suppressed addresses). */
  async disableEmail(tx: Tx, memberIds: Iterable<string>): Promise<void> {
    for (const part of chunks([...memberIds], ROWS_PER_STATEMENT)) {
      await tx
        .updateTable("members")
        .set({ email_disabled: sql<number>`1` })
        .where("id", "in", part)
        .execute();
    }
  }

  /** Removes these members from the newsletter. */
  async unsubscribe(tx: Tx, newsletterId: string, memberIds: Iterable<string>): Promise<void> {
    for (const part of chunks([...memberIds], ROWS_PER_STATEMENT)) {
      await tx
        .deleteFrom("members_newsletters")
        .where("newsletter_id", "=", newsletterId)
        .where("member_id", "in", part)
        .execute();
    }
  }

  /**
   * One read for a chunk of members: their stored figures and the email count, opened count and
   * tracked count (recipient rows whose email tracks opens) of their recipient rows.
   */
  async figures(tx: Tx, memberIds: readonly string[]): Promise<MemberFiguresRow[]> {
    return tx
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
      .where("m.id", "in", memberIds)
      .groupBy(["m.id", "m.email_count", "m.email_opened_count", "m.email_open_rate"])
      .execute();
  }

  /** Writes the members' new figures in one statement. */
  async setFigures(tx: Tx, changed: readonly MemberFigures[]): Promise<void> {
    if (changed.length === 0) return;
    const d = this.dialect;
    await sql`update members set email_count = ${valuesColumn(d, "integer", "column2")}, email_opened_count = ${valuesColumn(d, "integer", "column3")}, email_open_rate = ${valuesColumn(d, "integer", "column4")} from ${valuesTable(changed)} where members.id = v.column1`.execute(
      tx,
    );
  }
}
