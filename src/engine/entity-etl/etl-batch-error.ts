import { describeError, JobFailedError, LeaseLostError } from "../../infra/errors.ts";

/**
 * A database error while reading or committing one batch of an entity ETL run: the run fails,
 * and its error names the source, entity and batch, so `tidemark runs show` says where it
 * happened, not only what the database said. The database's error is the cause.
 */
export class EtlBatchError extends JobFailedError {
  constructor(what: string, batch: readonly string[], cause: unknown, firstBatch: boolean) {
    const first = batch[0] ?? "";
    const last = batch[batch.length - 1] ?? "";
    const targets = batch.length > 1 ? `targets ${first} … ${last}` : `target ${first}`;
    const earlier = firstBatch ? "" : "; earlier batches were";
    super(
      `${what}: database error at ${targets} (${batch.length} in the batch, none of them committed${earlier}): ${describeError(cause)}`,
      { cause },
    );
  }
}

/**
 * `err` with its batch named, unless it is no database error of the batch: an interrupted run
 * (the signal's reason) and a lost lease keep their own error, which decides the run's end.
 */
export function inBatchContext(
  what: string,
  batch: readonly string[],
  err: unknown,
  signal: AbortSignal,
  firstBatch: boolean,
): unknown {
  if (signal.aborted || err instanceof LeaseLostError || err instanceof EtlBatchError) return err;
  return new EtlBatchError(what, batch, err, firstBatch);
}
