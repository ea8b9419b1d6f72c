import { abortableSleep } from "../http/retry-policy.ts";
import type { Queue, QueueMessageInfo } from "../queue/queue.ts";

/** Longest wait between two depth readings while draining. */
const MAX_POLL_MS = 2_000;

/** How many dead letters per queue are remembered to tell new ones from old. */
const DEAD_SNAPSHOT_LIMIT = 1_000;

/** The dead-lettered messages of some queues at one moment, to compare with a later one. */
export interface DeadLetterSnapshot {
  readonly ids: ReadonlyMap<string, ReadonlySet<string>>;
  readonly counts: ReadonlyMap<string, number>;
}

/** Takes a snapshot of the queues' dead letters (ids of the newest, counts of all). */
export async function snapshotDeadLetters(
  queue: Queue,
  queues: readonly string[],
): Promise<DeadLetterSnapshot> {
  const stats = await queue.stats();
  const ids = new Map<string, Set<string>>();
  const counts = new Map<string, number>();
  for (const name of queues) {
    const dead = await queue.deadLetters(name, { limit: DEAD_SNAPSHOT_LIMIT });
    ids.set(name, new Set(dead.map((m) => m.id)));
    counts.set(name, stats.find((s) => s.queue === name)?.deadLettered ?? 0);
  }
  return { ids, counts };
}

/** What was dead-lettered between a snapshot and now. */
export interface NewDeadLetters {
  /** Total count (at least messages.length: beyond the listing limit only counts are known). */
  count: number;
  /** The newest of them, with their last error. */
  messages: QueueMessageInfo[];
}

/** Dead letters that appeared since `before`. */
export async function deadLettersSince(
  queue: Queue,
  before: DeadLetterSnapshot,
): Promise<NewDeadLetters> {
  const stats = await queue.stats();
  const messages: QueueMessageInfo[] = [];
  let count = 0;
  for (const [name, oldIds] of before.ids) {
    const dead = await queue.deadLetters(name, { limit: DEAD_SNAPSHOT_LIMIT });
    const fresh = dead.filter((m) => !oldIds.has(m.id));
    messages.push(...fresh);
    const now = stats.find((s) => s.queue === name)?.deadLettered ?? 0;
    count += Math.max(fresh.length, now - (before.counts.get(name) ?? 0));
  }
  return { count, messages };
}

/** Options of waitUntilDrained. */
export interface DrainWaitOptions {
  /**
   * How often the queues' depth is read when few messages are left (default 100 ms); with
   * many left, up to every 2 s (2 ms per pending message), to spare the database.
   */
  pollMs?: number;
  /** Consecutive empty readings needed (default 2: a message sent between reads is seen). */
  emptyReadings?: number;
  signal?: AbortSignal;
}

/**
 * Resolves once none of `queues` holds a message that is waiting (deliverable, delayed or
 * waiting out a retry backoff) or being handled, by any process. Rejects when `signal` aborts.
 */
export async function waitUntilDrained(
  queue: Queue,
  queues: readonly string[],
  options: DrainWaitOptions = {},
): Promise<void> {
  const pollMs = options.pollMs ?? 100;
  const needed = options.emptyReadings ?? 2;
  const watched = new Set(queues);
  let empty = 0;
  for (;;) {
    options.signal?.throwIfAborted();
    const stats = await queue.stats();
    const pending = stats
      .filter((s) => watched.has(s.queue))
      .reduce((sum, s) => sum + s.queued + s.active, 0);
    empty = pending === 0 ? empty + 1 : 0;
    if (empty >= needed) return;
    await abortableSleep(Math.min(MAX_POLL_MS, Math.max(pollMs, pending * 2)), options.signal);
  }
}
