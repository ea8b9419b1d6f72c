import type { Transaction } from "kysely";
import { clearPending, readPending } from "../../repos/pending-stats.ts";
import type { EmailAnalyticsTables } from "../../tables.ts";
import type { FetchRun } from "../fetch/fetch-state.ts";
import { aggregateEmailStats, aggregateMemberStats } from "./aggregate-stats.ts";

type Tx = Transaction<EmailAnalyticsTables>;

/** Members a run remembers as counted, at most. */
const MAX_COUNTED_MEMBERS = 500_000;

/** True when the run lost its lease or was asked to stop: nothing more may be written. */
export function isLeaseLost(run: FetchRun, err: unknown): boolean {
  return run.ctx.signal.aborted || (err instanceof Error && err.name === "LeaseLostError");
}

/** What one aggregation commit did. */
interface Recount {
  emails: number;
  counted: string[];
  unchanged: number;
}

/** Recounts every pending email and member, then drops them from the table (one transaction). */
async function recountPending(run: FetchRun, tx: Tx): Promise<Recount> {
  const pending = await readPending(tx);
  const withOpened = [...pending.emails].filter(([, o]) => o).map(([id]) => id);
  const withoutOpened = [...pending.emails].filter(([, o]) => !o).map(([id]) => id);
  const counted = pending.members.filter((id) => !run.countedMembers.has(id));
  const emails =
    (await aggregateEmailStats(tx, run.repos, withOpened, true)) +
    (await aggregateEmailStats(tx, run.repos, withoutOpened, false));
  await aggregateMemberStats(tx, run.repos.members, counted);
  await clearPending(tx, pending);
  return { emails, counted, unchanged: pending.members.length - counted.length };
}

/**
 * Ghost's aggregateStats for every email and member in `email_analytics_pending` (this run's
 * batches and whatever an earlier run left there), in one fenced commit that also empties the
 * table. An error is logged and the run goes on (the ids stay pending). Returns whether it
 * succeeded.
 */
export async function aggregatePending(run: FetchRun): Promise<boolean> {
  if (!run.pendingStored) return true;
  if (run.countedMembers.size > MAX_COUNTED_MEMBERS) run.countedMembers.clear();
  try {
    const done = await run.ctx.commit<EmailAnalyticsTables, Recount>((tx: Tx) =>
      recountPending(run, tx),
    );
    for (const id of done.counted) run.countedMembers.add(id);
    run.pendingStored = false;
    run.aggregation.membersUnchanged += done.unchanged;
    run.aggregation.emails += done.emails;
    run.aggregation.members += done.counted.length;
    return true;
  } catch (err) {
    // A lost lease is the run's end, not an aggregation problem.
    if (isLeaseLost(run, err)) throw err;
    run.aggregation.errors += 1;
    run.ctx.logger.error(
      { err: err instanceof Error ? err.message : String(err) },
      "[EmailAnalytics] Error while aggregating stats",
    );
    return false;
  }
}
