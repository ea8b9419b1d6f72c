/**
 * The key lines' row ids on the batched path: a fact line's row id is hashed after its key line
 * is written (see row-id-batch.ts), so the key line leaves room for the id's first
 * KEY_ROW_ID_CHARS characters, copied in once the batch of ids is hashed.
 */
import { KEY_ROW_ID_CHARS } from "../../../publish/artifacts/key-index.ts";

/** Row ids of fact lines waiting to be copied into their key lines. */
export interface WaitingIds {
  count: number;
  bucket: Int32Array;
  at: Int32Array;
  idAt: Int32Array;
}

/**
 * Copies each waiting row id's first KEY_ROW_ID_CHARS bytes from its fact line into its key
 * line. The loop is a function of its own, with nothing after it, because of how V8 optimizes
 * a loop hot on its first call (on-stack replacement): it keeps that loop code for later calls,
 * and code after the loop that had not run yet then has no type feedback in it. In the caller,
 * every later call ran the loop there and deoptimized right after it (~150 times per parse
 * thread on the 1M bench file), the caller never being optimized as a whole.
 */
export function copyRowIds(w: WaitingIds, facts: DataView, buckets: DataView[]): void {
  for (let i = 0; i < w.count; i++) {
    const from = w.idAt[i]!;
    const to = w.at[i]!;
    const k = buckets[w.bucket[i]!]!;
    for (let j = 0; j < KEY_ROW_ID_CHARS; j += 4) k.setInt32(to + j, facts.getInt32(from + j));
  }
}
