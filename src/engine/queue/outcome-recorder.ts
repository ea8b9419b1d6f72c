import type { Logger } from "../../infra/logging/logger.ts";
import type { Delivery, QueueDriver } from "./queue-driver.ts";

/** How long finished messages wait to be recorded together. */
const FLUSH_DELAY_MS = 20;

/** A handled message's outcome: no error = completed. */
export interface Outcome<E extends { readonly delivery: Delivery; abandoned: boolean }> {
  entry: E;
  error?: string;
  permanent?: boolean;
}

/**
 * Records a worker's outcomes in batches (one `complete` statement for the messages finished
 * within a short delay, then each failure) and hands every entry back through `forget` once
 * recorded. Entries abandoned meanwhile (released at stop, hold lost) are not recorded.
 */
export class OutcomeRecorder<E extends { readonly delivery: Delivery; abandoned: boolean }> {
  #outcomes: Outcome<E>[] = [];
  #flushing: Promise<void> | undefined;
  #flushScheduled = false;

  constructor(
    private readonly driver: QueueDriver,
    private readonly queue: string,
    private readonly logger: Logger,
    private readonly forget: (entry: E) => void,
  ) {}

  /** Queues an outcome for the next batch. */
  add(outcome: Outcome<E>): void {
    this.#outcomes.push(outcome);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    // A short delay lets the outcomes of several messages be recorded in one statement; the
    // worker's slots are free already, so it costs no throughput (stop() flushes at once).
    setTimeout(() => {
      this.#flushScheduled = false;
      void this.flush();
    }, FLUSH_DELAY_MS);
  }

  /** Records everything queued so far; resolves when it is written (or failed to be). */
  flush(): Promise<void> {
    this.#flushing ??= this.#record().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async #record(): Promise<void> {
    while (this.#outcomes.length > 0) {
      const batch = this.#outcomes;
      this.#outcomes = [];
      const live = batch.filter((o) => !o.entry.abandoned);
      const done = live.filter((o) => o.error === undefined).map((o) => o.entry.delivery);
      try {
        if (done.length > 0) await this.driver.complete(this.queue, done);
      } catch (err) {
        this.logger.error(
          { err, queue: this.queue, count: done.length },
          "could not record completions; the messages come back after their visibility timeout",
        );
      }
      for (const o of live) {
        if (o.error === undefined) continue;
        try {
          await this.driver.fail(this.queue, o.entry.delivery, o.error, o.permanent ?? false);
        } catch (err) {
          this.logger.error(
            { err, queue: this.queue, message_id: o.entry.delivery.message.id },
            "could not record a failure; the message comes back after its visibility timeout",
          );
        }
      }
      for (const o of batch) this.forget(o.entry);
    }
  }
}
