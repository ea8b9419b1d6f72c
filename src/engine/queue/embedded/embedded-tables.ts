import type { MessageState } from "../queue.ts";

/** A row of `tm_queue_messages`, the embedded queue's only table. */
export interface QueueMessagesTable {
  /** UUIDv7 made by the sender (time-ordered). */
  id: string;
  queue: string;
  state: MessageState;
  /** JSON text. */
  payload: string;
  /** Deliveries so far; a release at graceful stop takes its delivery back. */
  attempts: number;
  retry_limit: number;
  retry_delay_ms: number;
  /** 1 or 0. */
  retry_backoff: number;
  visibility_ms: number;
  /** At most one queued/active row per (queue, singleton_key): a partial unique index. */
  singleton_key: string | null;
  /**
   * Epoch milliseconds of the moment that matters for the state: deliverable from (queued),
   * hold expires (active), finished (completed, dead). An integer so that both dialects can
   * compute `now + visibility_ms` in SQL and compare it in one index range.
   */
  due_at_ms: number;
  /** Random token of the claim holding the message (active only). */
  lock_token: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  last_error: string | null;
}

/** The embedded queue's tables, for `typed<…>(db)`. */
export interface QueueTables {
  tm_queue_messages: QueueMessagesTable;
}

/** The table name, shared by the migration and the driver. */
export const MESSAGES_TABLE = "tm_queue_messages";
