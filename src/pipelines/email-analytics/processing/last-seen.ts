import type { Transaction } from "kysely";
import { utcDayStart } from "../../../engine/index.ts";
import type { EmailAnalyticsTables } from "../tables.ts";
import { chunks } from "./sql-batch.ts";

/**
 * Ghost's LastSeenAtUpdater rule for an open: `last_seen_at` becomes the open's time when it is
 * NULL or earlier than the start of the open's day (UTC), so it changes at most once a day.
 * Returns the new value, or undefined when it stays.
 */
export function lastSeenAfterOpen(current: string | null, openedAt: Date): string | undefined {
  if (current === null || new Date(current).getTime() < utcDayStart(openedAt).getTime()) {
    return openedAt.toISOString();
  }
  return undefined;
}

/**
 * Adds the `last_seen_at` of members not in `known` yet (member id → value); `known` is the
 * applier's run-long map, kept current by its own writes.
 */
export async function loadLastSeen(
  tx: Transaction<EmailAnalyticsTables>,
  memberIds: readonly string[],
  known: Map<string, string | null>,
): Promise<Map<string, string | null>> {
  const out = known;
  const missing = [...new Set(memberIds)].filter((id) => !out.has(id));
  for (const part of chunks(missing)) {
    const rows = await tx
      .selectFrom("members")
      .select(["id", "last_seen_at"])
      .where("id", "in", part)
      .execute();
    for (const id of part) out.set(id, null);
    for (const r of rows) out.set(r.id, r.last_seen_at);
  }
  return out;
}
