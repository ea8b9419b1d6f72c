import type { Transaction } from "kysely";
import { chunks } from "tidemark/kit";
import type { EmailCounters, EmailsRepo } from "../../repos/emails-repo.ts";
import type { MemberFigures, MembersRepo } from "../../repos/members-repo.ts";
import type { RecipientsRepo } from "../../repos/recipients-repo.ts";
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
  repos: { emails: EmailsRepo; recipients: RecipientsRepo },
  emailIds: Iterable<string>,
  includeOpened: boolean,
): Promise<number> {
  let count = 0;
  for (const emailId of emailIds) {
    const countSet = (column: "delivered_at" | "opened_at" | "failed_at") =>
      repos.recipients.countWith(tx, emailId, column);
    const update: EmailCounters = {
      delivered_count: await countSet("delivered_at"),
      failed_count: await countSet("failed_at"),
    };
    if (includeOpened) update.opened_count = await countSet("opened_at");
    await repos.emails.setCounters(tx, emailId, update);
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
  members: MembersRepo,
  memberIds: Iterable<string>,
): Promise<number> {
  let count = 0;
  for (const part of chunks([...new Set(memberIds)], MEMBERS_PER_STATEMENT)) {
    const rows = await members.figures(tx, part);
    const changed: MemberFigures[] = [];
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
    await members.setFigures(tx, changed);
    count += part.length;
  }
  return count;
}
