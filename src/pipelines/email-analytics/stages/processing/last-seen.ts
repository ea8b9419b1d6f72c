import type { Transaction } from "kysely";
import type { MembersRepo } from "../../repos/members-repo.ts";
import type { EmailAnalyticsTables } from "../../tables.ts";

const DAY_MS = 86_400_000;

/**
 * Ghost's LastSeenAtUpdater rule for an open: `last_seen_at` becomes the open's time when it is
 * NULL or earlier than the start of the open's day (UTC), so it changes at most once a day.
 * Times are epoch milliseconds (a run compares one per open). Returns the new value, or
 * undefined when it stays.
 */
export function lastSeenAfterOpen(current: number | null, openedAtMs: number): number | undefined {
  const dayStart = Math.floor(openedAtMs / DAY_MS) * DAY_MS;
  if (current === null || current < dayStart) return openedAtMs;
  return undefined;
}

/**
 * Adds the `last_seen_at` (epoch ms, or null) of members not in `known` yet; `known` is the
 * applier's run-long map, kept current by its own writes.
 */
export async function loadLastSeen(
  members: MembersRepo,
  tx: Transaction<EmailAnalyticsTables>,
  memberIds: readonly string[],
  known: Map<string, number | null>,
): Promise<Map<string, number | null>> {
  const out = known;
  const missing = [...new Set(memberIds)].filter((id) => !out.has(id));
  const rows = await members.lastSeen(tx, missing);
  for (const id of missing) out.set(id, null);
  for (const r of rows) {
    out.set(r.id, r.last_seen_at === null ? null : new Date(r.last_seen_at).getTime());
  }
  return out;
}
