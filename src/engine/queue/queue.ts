/** One message handed to a handler. */
export interface QueueMessage<T = unknown> {
  id: string;
  queue: string;
  payload: T;
  /** 1 on first delivery, 2 on the first retry, … */
  attempt: number;
  createdAt: string;
}

/** Per-message options on send. */
export interface SendOptions {
  /** Do not deliver before this many seconds from now. */
  startAfterSeconds?: number;
  /** At most one queued-or-active message with this key per queue; a duplicate send returns null. */
  singletonKey?: string;
  /** Retries after the first failure before the message is dead-lettered (default 3). */
  retryLimit?: number;
  /** Delay before the first retry (default 5 s); doubled on each retry when retryBackoff. */
  retryDelaySeconds?: number;
  /** Exponential backoff between retries (default true). */
  retryBackoff?: boolean;
  /**
   * Visibility timeout: a message held longer than this by a worker that stopped renewing it
   * (crashed) is delivered again (default 300 s). Workers renew it while the handler runs.
   */
  visibilityTimeoutSeconds?: number;
}

/** How a worker consumes a queue. */
export interface WorkOptions {
  /** Messages handled at once by this worker (default 1). */
  concurrency?: number;
  /** Messages fetched per poll (default = concurrency). */
  batchSize?: number;
  /** Idle polling interval (default 500 ms). */
  pollIntervalMs?: number;
  /**
   * The handler guards itself against running twice (a lease of its own, fenced commits), so
   * losing the message's hold — another worker may now hold it — does not abort it: it goes on,
   * and its outcome is left to that other delivery. Default false: the handler is aborted.
   */
  keepRunningWhenHoldLost?: boolean;
}

/**
 * Work a handler hands back to finish after it returns (`defer`): its slot goes to the next
 * message at once, while the message stays held and is completed only once every deferred
 * promise has resolved (one that rejects fails the message, as a throw would).
 */
export interface MessageFinish {
  /** Completes the message only after `work` resolves; the worker's slot is freed already. */
  defer(work: Promise<unknown>): void;
}

/**
 * A handler throws to fail the message (it is retried, then dead-lettered); throwing
 * `PermanentQueueError` dead-letters it at once. `signal` aborts when the worker stops and
 * the grace period ran out, or when the message's visibility was lost.
 */
export type QueueHandler<T = unknown> = (
  message: QueueMessage<T>,
  signal: AbortSignal,
  finish: MessageFinish,
) => Promise<void>;

/** Depth figures for metrics and /healthz. */
export interface QueueStats {
  queue: string;
  /** Waiting: deliverable now, delayed, or waiting for a retry. */
  queued: number;
  active: number;
  deadLettered: number;
  /** Age of the oldest message waiting to be delivered (since it became deliverable), 0 when none. */
  oldestQueuedAgeSeconds: number;
}

/** Where a message is in its life. `dead` = dead-lettered, kept for inspection. */
export type MessageState = "queued" | "active" | "completed" | "dead";

/** A message as stored, for inspection (API, tests, dead-letter listing). */
export interface QueueMessageInfo<T = unknown> {
  id: string;
  queue: string;
  state: MessageState;
  payload: T;
  /** Deliveries so far (a delivery released by a graceful stop does not count). */
  attempts: number;
  createdAt: string;
  /** The last failure (handler error or lost visibility), null when none. */
  lastError: string | null;
  /**
   * Waiting messages: when the next delivery may happen (a retry's backoff, a delayed start);
   * null for other states or when the engine does not say.
   */
  nextAttemptAt?: string | null;
}

/** Which messages `messages()` lists: waiting ones, held by a worker, or dead-lettered. */
export type ListedState = "queued" | "active" | "dead";

/** One interface, two engines (embedded tables; pg-boss). Chosen by `queue:` in tidemark.yaml. */
export interface Queue {
  readonly engine: "embedded" | "pg-boss";
  /** Sends one message; returns its id, or null when a singletonKey duplicate was dropped. */
  send<T>(queue: string, payload: T, options?: SendOptions): Promise<string | null>;
  /** Sends many messages at once (ids in input order; null for dropped duplicates). */
  sendBatch<T>(
    queue: string,
    items: ReadonlyArray<{ payload: T; options?: SendOptions }>,
  ): Promise<Array<string | null>>;
  /**
   * Starts consuming a queue until stop(); resolves once the worker runs. May be called for
   * several queues (or several times for one queue) on one Queue.
   */
  work<T>(queue: string, options: WorkOptions, handler: QueueHandler<T>): Promise<void>;
  /**
   * Stops every worker of this Queue: no new messages are taken, in-flight ones may finish
   * for up to graceMs (default 10 s); the rest are aborted and released back to the queue
   * without using up an attempt. Sending still works afterwards.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
  /** Counts per queue that has messages (completed ones aside). */
  stats(): Promise<QueueStats[]>;
  /** One message by id (dead-lettered ones included), or null when unknown or purged. */
  getMessage<T = unknown>(queue: string, id: string): Promise<QueueMessageInfo<T> | null>;
  /** Dead-lettered messages of a queue, newest first. */
  deadLetters<T = unknown>(
    queue: string,
    options?: { limit?: number },
  ): Promise<QueueMessageInfo<T>[]>;
  /**
   * Messages of a queue that are not completed (optionally of one state), newest first, at
   * most `limit` (default 100): for inspection (the dashboard's queue page).
   */
  messages<T = unknown>(
    queue: string,
    options?: { state?: ListedState; limit?: number },
  ): Promise<QueueMessageInfo<T>[]>;
  /**
   * Deletes waiting or dead-lettered messages (never one a worker holds); returns the ids
   * deleted. Unknown ids, and messages active meanwhile, are left alone.
   */
  deleteMessages(queue: string, ids: readonly string[]): Promise<string[]>;
  /**
   * Sends dead-lettered messages (these ids, or every one of the queue) back for delivery now,
   * with a fresh set of attempts; returns the ids moved. Ids that are not dead-lettered, or
   * whose singleton key has a live message meanwhile, are left as they are.
   */
  retryDead(queue: string, ids: readonly string[] | "all"): Promise<string[]>;
  /** stop() with its default grace, then releases connections; the Queue is unusable after. */
  close(): Promise<void>;
}
