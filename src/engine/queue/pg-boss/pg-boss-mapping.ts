import type { ListedState, MessageState, QueueMessageInfo } from "../queue.ts";

/** The columns of a pg-boss job the adapter reads back. */
export interface PgBossJobRow {
  id: string;
  name: string;
  data: unknown;
  state: "created" | "retry" | "active" | "completed" | "cancelled" | "failed";
  retryCount: number;
  startedOn: Date | null;
  createdOn: Date;
  output: unknown;
  /** When a waiting job may be fetched (read by the message listing only). */
  startAfter?: Date | null;
}

const STATES: Record<PgBossJobRow["state"], MessageState> = {
  created: "queued",
  retry: "queued",
  active: "active",
  completed: "completed",
  cancelled: "dead",
  failed: "dead",
};

/** The error pg-boss stored in `output`: `{message}` from fail(), `{value:{message}}` on expiry. */
function errorOf(output: unknown): string | null {
  if (output === null || typeof output !== "object") return null;
  const o = output as { message?: unknown; value?: { message?: unknown } };
  const message = o.message ?? o.value?.message;
  return typeof message === "string" ? message : null;
}

/** pg-boss's states behind each listed state. */
export const PG_BOSS_STATES: Record<ListedState, string[]> = {
  queued: ["created", "retry"],
  active: ["active"],
  dead: ["failed", "cancelled"],
};

/** A pg-boss job as a QueueMessageInfo. */
export function toMessageInfo(row: PgBossJobRow): QueueMessageInfo {
  const state = STATES[row.state];
  return {
    id: row.id,
    queue: row.name,
    state,
    payload: row.data,
    // retry_count counts the retries started; a delivery in progress (or done) adds one.
    attempts: row.retryCount + (row.startedOn ? 1 : 0),
    createdAt: row.createdOn.toISOString(),
    lastError: state === "completed" ? null : errorOf(row.output),
    nextAttemptAt: state === "queued" && row.startAfter ? row.startAfter.toISOString() : null,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** pg-boss ids are uuids; anything else cannot be a message of it. */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}
