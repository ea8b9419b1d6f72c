import type { Transaction } from "kysely";
import type { JobContext } from "tidemark";
import { type ApplyInput, type BatchApplier, isoTimestamp } from "tidemark/kit";
import type { RakutenTables } from "../../tables.ts";

/** What every applier knows besides the document: the run and the time it writes. */
export interface ApplyMeta {
  runId: string;
  /** Now, as ISO-8601 UTC (the run's clock). */
  now(): string;
  /** Shops written by this run (code → what was written), so each is written once. */
  shopsWritten: Map<string, string>;
}

/** An entity's batch applier: many targets' rows in one go, inside the run's commit. */
export type BatchApply<N> = (
  tx: Transaction<RakutenTables>,
  items: ReadonlyArray<Omit<ApplyInput<N, RakutenTables>, "tx">>,
  meta: ApplyMeta,
) => Promise<void>;

/** The engine's batch applier bound to the run's metadata, if the entity has one. */
export function batchApplier<N>(
  batch: BatchApply<N> | undefined,
  meta: ApplyMeta,
): BatchApplier<N, RakutenTables> | undefined {
  return batch === undefined ? undefined : (tx, items) => batch(tx, items, meta);
}

/** The run's apply metadata. */
export function applyMetaOf(ctx: Pick<JobContext, "runId" | "clock">): ApplyMeta {
  return { runId: ctx.runId, now: () => isoTimestamp(ctx.clock.now()), shopsWritten: new Map() };
}
