import { sql, type Transaction } from "kysely";
import type { Applier, ApplyInput, BatchApplier } from "./etl-types.ts";

/** One target to apply, without the transaction. */
export type ApplyItem<N> = Omit<ApplyInput<N, unknown>, "tx">;

/** Which targets applied and which failed (with their error). */
export interface ApplyOutcome<N> {
  applied: ApplyItem<N>[];
  failed: Array<{ item: ApplyItem<N>; error: unknown }>;
}

/**
 * Applies each item inside `tx`, each in its own savepoint, so a failing apply undoes only its
 * own writes and the rest of the commit goes ahead. A failure to roll back (the database is
 * gone) or an aborted run throws, and the whole commit is undone.
 */
export async function applyEach<N, DB>(
  tx: Transaction<DB>,
  items: readonly ApplyItem<N>[],
  apply: Applier<N, DB>,
  signal: AbortSignal,
): Promise<ApplyOutcome<N>> {
  const outcome: ApplyOutcome<N> = { applied: [], failed: [] };
  for (const item of items) {
    await sql`savepoint tm_etl_apply`.execute(tx);
    try {
      await apply({ ...item, tx });
      await sql`release savepoint tm_etl_apply`.execute(tx);
      outcome.applied.push(item);
    } catch (error) {
      if (signal.aborted) throw error;
      await sql`rollback to savepoint tm_etl_apply`.execute(tx);
      await sql`release savepoint tm_etl_apply`.execute(tx);
      outcome.failed.push({ item, error });
    }
  }
  return outcome;
}

/**
 * Applies the items with `applyBatch` in one savepoint when there is one; if it throws, its
 * writes are rolled back and `applyEach` applies them one by one, so only the bad ones fail.
 * Without `applyBatch` this is `applyEach`.
 */
export async function applyAll<N, DB>(
  tx: Transaction<DB>,
  items: readonly ApplyItem<N>[],
  appliers: { apply: Applier<N, DB>; applyBatch?: BatchApplier<N, DB> | undefined },
  signal: AbortSignal,
): Promise<ApplyOutcome<N>> {
  const { applyBatch } = appliers;
  if (applyBatch === undefined || items.length === 0) {
    return applyEach(tx, items, appliers.apply, signal);
  }
  await sql`savepoint tm_etl_batch`.execute(tx);
  try {
    await applyBatch(tx, items);
    await sql`release savepoint tm_etl_batch`.execute(tx);
    return { applied: [...items], failed: [] };
  } catch (error) {
    if (signal.aborted) throw error;
    await sql`rollback to savepoint tm_etl_batch`.execute(tx);
    await sql`release savepoint tm_etl_batch`.execute(tx);
  }
  return applyEach(tx, items, appliers.apply, signal);
}
