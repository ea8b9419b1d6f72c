import type { ListedState, QueueMessage, QueueMessageInfo, QueueStats } from "./queue.ts";
import type { ResolvedSendOptions } from "./queue-options.ts";

/** One delivery of a message to this process, with what the engine needs to settle it. */
export interface Delivery {
  readonly message: QueueMessage<unknown>;
  /**
   * Identifies this delivery (embedded: the claim's lock token), so that a late outcome of
   * an earlier delivery can never settle a later one.
   */
  readonly token: string;
  /** Visibility timeout; the worker renews its hold each time a third of it has passed. */
  readonly visibilityMs: number;
  /** Retry policy of the message (the worker logs a failure past the limit as dead-lettered). */
  readonly retry: { readonly limit: number; readonly delayMs: number; readonly backoff: boolean };
}

/** A message to insert, options resolved. */
export interface OutgoingMessage {
  id: string;
  payload: unknown;
  options: ResolvedSendOptions;
}

/**
 * What an engine implements; `DriverQueue` adds workers (concurrency, batching, heartbeats,
 * graceful stop) on top, identically for every engine.
 */
export interface QueueDriver {
  readonly engine: "embedded" | "pg-boss";
  /** Inserts messages; returns the ids actually inserted (singleton duplicates are not). */
  insert(queue: string, messages: readonly OutgoingMessage[]): Promise<Set<string>>;
  /** Atomically takes up to `max` deliverable messages for this worker. */
  claim(queue: string, max: number): Promise<Delivery[]>;
  /** Marks deliveries completed. */
  complete(queue: string, deliveries: readonly Delivery[]): Promise<void>;
  /** Records a failure: retried later with backoff, or dead-lettered (always when permanent). */
  fail(queue: string, delivery: Delivery, error: string, permanent: boolean): Promise<void>;
  /** Renews the hold on deliveries; returns the ids still held (the others were lost). */
  extend(queue: string, deliveries: readonly Delivery[]): Promise<Set<string>>;
  /** Gives deliveries back, deliverable at once, without using up an attempt. */
  release(queue: string, deliveries: readonly Delivery[]): Promise<void>;
  /** Periodic upkeep a worker runs (expired holds, retention); may do nothing. */
  maintain(queue: string): Promise<void>;
  stats(): Promise<QueueStats[]>;
  getMessage(queue: string, id: string): Promise<QueueMessageInfo | null>;
  deadLetters(queue: string, limit: number): Promise<QueueMessageInfo[]>;
  /** Not-completed messages (of one state, or all three), newest first. */
  messages(
    queue: string,
    state: ListedState | undefined,
    limit: number,
  ): Promise<QueueMessageInfo[]>;
  /** Deletes queued or dead messages among `ids`; returns those deleted. */
  deleteMessages(queue: string, ids: readonly string[]): Promise<string[]>;
  /**
   * Puts dead-lettered messages back in the queue, deliverable now with a fresh set of attempts;
   * returns the ids it moved. An id that is not dead, or whose singleton key already has a live
   * message, stays where it is.
   */
  retryDead(queue: string, ids: readonly string[] | "all"): Promise<string[]>;
  close(): Promise<void>;
}
