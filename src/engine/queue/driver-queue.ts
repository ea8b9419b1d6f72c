import type { Logger } from "../../infra/logging/logger.ts";
import { newMessageId } from "./message-id.ts";
import type {
  ListedState,
  Queue,
  QueueHandler,
  QueueMessageInfo,
  QueueStats,
  SendOptions,
  WorkOptions,
} from "./queue.ts";
import type { OutgoingMessage, QueueDriver } from "./queue-driver.ts";
import { DEFAULT_STOP_GRACE_MS, resolveSendOptions, resolveWorkOptions } from "./queue-options.ts";
import { QueueWorker } from "./queue-worker.ts";

const QUEUE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}$/;

/** Refuses queue names pg-boss or a URL path could not carry (`<pipeline>.<name>` is fine). */
export function assertQueueName(name: string): void {
  if (!QUEUE_NAME.test(name)) {
    throw new RangeError(
      `invalid queue name ${JSON.stringify(name)}: use letters, digits, ".", "_" and "-" (at most 200)`,
    );
  }
}

/** The Queue every engine shares: validation and workers here, storage in the driver. */
export class DriverQueue implements Queue {
  readonly engine: Queue["engine"];
  #workers: QueueWorker[] = [];
  #closed = false;

  constructor(
    readonly driver: QueueDriver,
    private readonly logger: Logger,
  ) {
    this.engine = driver.engine;
  }

  async send<T>(queue: string, payload: T, options?: SendOptions): Promise<string | null> {
    const [id] = await this.sendBatch(queue, [{ payload, options }]);
    return id ?? null;
  }

  async sendBatch<T>(
    queue: string,
    items: ReadonlyArray<{ payload: T; options?: SendOptions }>,
  ): Promise<Array<string | null>> {
    this.#assertOpen();
    assertQueueName(queue);
    if (items.length === 0) return [];
    const messages: OutgoingMessage[] = items.map((item) => ({
      id: newMessageId(),
      payload: item.payload,
      options: resolveSendOptions(item.options),
    }));
    const inserted = await this.driver.insert(queue, messages);
    if (messages.some((m) => m.options.startAfterMs === 0 && inserted.has(m.id))) {
      for (const w of this.#workers) if (w.queue === queue) w.wake();
    }
    return messages.map((m) => (inserted.has(m.id) ? m.id : null));
  }

  async work<T>(queue: string, options: WorkOptions, handler: QueueHandler<T>): Promise<void> {
    this.#assertOpen();
    assertQueueName(queue);
    const worker = new QueueWorker(
      this.driver,
      queue,
      resolveWorkOptions(options),
      handler as QueueHandler<unknown>,
      this.logger,
    );
    this.#workers.push(worker);
    worker.start();
  }

  async stop(options: { graceMs?: number } = {}): Promise<void> {
    const workers = this.#workers;
    this.#workers = [];
    const graceMs = options.graceMs ?? DEFAULT_STOP_GRACE_MS;
    await Promise.all(workers.map((w) => w.stop(graceMs)));
  }

  stats(): Promise<QueueStats[]> {
    this.#assertOpen();
    return this.driver.stats();
  }

  async getMessage<T = unknown>(queue: string, id: string): Promise<QueueMessageInfo<T> | null> {
    this.#assertOpen();
    return (await this.driver.getMessage(queue, id)) as QueueMessageInfo<T> | null;
  }

  async deadLetters<T = unknown>(
    queue: string,
    options: { limit?: number } = {},
  ): Promise<QueueMessageInfo<T>[]> {
    this.#assertOpen();
    const limit = options.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`invalid limit ${limit}`);
    return (await this.driver.deadLetters(queue, limit)) as QueueMessageInfo<T>[];
  }

  async messages<T = unknown>(
    queue: string,
    options: { state?: ListedState; limit?: number } = {},
  ): Promise<QueueMessageInfo<T>[]> {
    this.#assertOpen();
    const limit = options.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`invalid limit ${limit}`);
    return (await this.driver.messages(queue, options.state, limit)) as QueueMessageInfo<T>[];
  }

  deleteMessages(queue: string, ids: readonly string[]): Promise<string[]> {
    this.#assertOpen();
    assertQueueName(queue);
    return ids.length === 0 ? Promise.resolve([]) : this.driver.deleteMessages(queue, ids);
  }

  retryDead(queue: string, ids: readonly string[] | "all"): Promise<string[]> {
    this.#assertOpen();
    assertQueueName(queue);
    return this.driver.retryDead(queue, ids);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.stop();
    this.#closed = true;
    await this.driver.close();
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error(`the ${this.engine} queue is closed`);
  }
}
