import type { Logger } from "../../infra/logging/logger.ts";
import { redactText } from "../../infra/logging/redact.ts";
import { describeError } from "../errors.ts";
import { OutcomeRecorder, type Outcome as RecordedOutcome } from "./outcome-recorder.ts";
import type { QueueHandler, WorkOptions } from "./queue.ts";
import type { Delivery, QueueDriver } from "./queue-driver.ts";
import { PermanentQueueError, QueueStoppedError, VisibilityLostError } from "./queue-errors.ts";

/** How often in-flight messages are checked for renewal (each renews every third of its timeout). */
const HEARTBEAT_TICK_MS = 200;
/** How often a polling worker runs the engine's upkeep (expired holds, retention). */
const MAINTAIN_EVERY_MS = 1_000;
const ERROR_BACKOFF_MAX_MS = 5_000;
const MAX_ERROR_LENGTH = 2_000;

interface InFlight {
  readonly key: string;
  readonly delivery: Delivery;
  readonly controller: AbortController;
  renewAt: number;
  /** The handler has returned or thrown: its slot is free. */
  finished: boolean;
  /** Finished, but work the handler deferred is still running: the message is not done yet. */
  settling: boolean;
  /** Released at stop or lost to a timeout: its outcome must not be recorded. */
  abandoned: boolean;
  /**
   * Its hold was lost but the handler goes on (keepRunningWhenHoldLost): never renewed again,
   * its outcome not recorded, but stop() still aborts it past the grace period and waits for it.
   */
  detached: boolean;
  /** Resolves when the handler has returned or thrown. */
  settled: Promise<void>;
}

/** How long stop() waits for aborted handlers to wind down (record their run, free leases). */
const ABORTED_HANDLER_WAIT_MS = 10_000;

type Outcome = RecordedOutcome<InFlight>;

type WaitKind = "wake" | "slot";

/** A message claimed ahead, waiting for a free slot (its hold is renewed meanwhile). */
interface Ready {
  readonly delivery: Delivery;
  renewAt: number;
}

/**
 * Consumes one queue for one `work()` call: claims batches when it has free slots, runs the
 * handler on each message, records outcomes in batches, renews holds while handlers run, and
 * on stop finishes or releases what it holds.
 */
export class QueueWorker {
  readonly #inFlight = new Map<string, InFlight>();
  /** Claimed with a batch but not started yet: started first as slots free up. */
  #ready: Ready[] = [];
  readonly #waiters: Record<WaitKind, Set<() => void>> = { wake: new Set(), slot: new Set() };
  readonly #outcomes: OutcomeRecorder<InFlight>;
  #renewing = false;
  #stopping = false;
  #lastMaintain = 0;
  #loopDone: Promise<void> = Promise.resolve();
  #heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly driver: QueueDriver,
    readonly queue: string,
    private readonly options: Required<WorkOptions>,
    private readonly handler: QueueHandler<unknown>,
    private readonly logger: Logger,
  ) {
    this.#outcomes = new OutcomeRecorder(driver, queue, logger, (e) => this.#forget(e));
  }

  /** Starts polling. */
  start(): void {
    this.#heartbeat = setInterval(() => void this.#renew(), HEARTBEAT_TICK_MS);
    this.#heartbeat.unref();
    this.#loopDone = this.#loop();
  }

  /** Ends an idle wait early (this process just sent a message to the queue). */
  wake(): void {
    this.#notify("wake");
  }

  /**
   * Stops claiming, lets in-flight handlers finish for up to graceMs, then aborts and releases
   * the rest; resolves when every outcome is recorded or released and aborted handlers have
   * returned (waiting at most 10 s more for them).
   */
  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    this.#notify("wake");
    this.#notify("slot");
    await this.#loopDone;
    await this.#releaseReady();
    const deadline = Date.now() + graceMs;
    while (this.#running().length > 0 && Date.now() < deadline) {
      await this.#until("slot", deadline - Date.now());
    }
    const unfinished = this.#running();
    if (unfinished.length > 0) {
      for (const e of unfinished) {
        e.abandoned = true;
        e.controller.abort(new QueueStoppedError());
        this.#inFlight.delete(e.key);
      }
      try {
        await this.driver.release(
          this.queue,
          // A detached message is no longer ours to give back.
          unfinished.filter((e) => !e.detached).map((e) => e.delivery),
        );
        this.logger.warn(
          { queue: this.queue, released: unfinished.length },
          "grace period over: unfinished messages released",
        );
      } catch (err) {
        this.logger.error(
          { err, queue: this.queue },
          "could not release messages; they come back after their visibility timeout",
        );
      }
      // Aborted handlers still clean up after themselves (a run records its end and releases
      // its lease): wait for them, bounded, so callers can close the database afterwards.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled(unfinished.map((e) => e.settled)),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, ABORTED_HANDLER_WAIT_MS);
        }),
      ]);
      clearTimeout(timer);
    }
    await this.#outcomes.flush();
    clearInterval(this.#heartbeat);
  }

  /** Messages not done yet: handlers running, or their deferred work still settling. */
  #running(): InFlight[] {
    return [...this.#inFlight.values()].filter((e) => (!e.finished || e.settling) && !e.abandoned);
  }

  /**
   * Slots for new messages. A handler that returned frees its slot at once, while its deferred
   * work settles and its outcome is recorded (the next message need not wait for those writes);
   * at most `concurrency` such finished-but-unrecorded messages are held besides the running ones.
   */
  #freeSlots(): number {
    const { concurrency } = this.options;
    let running = 0;
    for (const e of this.#inFlight.values()) if (!e.finished) running++;
    return Math.min(concurrency - running, 2 * concurrency - this.#inFlight.size);
  }

  /** Gives back the messages claimed ahead (at stop): other workers get them at once. */
  async #releaseReady(): Promise<void> {
    const unstarted = this.#ready.splice(0).map((r) => r.delivery);
    if (unstarted.length === 0) return;
    try {
      await this.driver.release(this.queue, unstarted);
    } catch (err) {
      this.logger.error(
        { err, queue: this.queue },
        "could not release messages claimed ahead; they come back after their visibility timeout",
      );
    }
  }

  /**
   * Claims the next batch as soon as the messages claimed ahead are used up, so a slot that
   * frees up starts its next message at once instead of waiting for a claim round trip: with a
   * free slot, batchSize (default: concurrency) messages; with every slot busy, batchSize - 1
   * to wait in #ready (none with a batch size of 1: a message held ahead of a long handler is
   * kept from other workers, so at most batchSize - 1 are).
   */
  async #loop(): Promise<void> {
    let failures = 0;
    while (!this.#stopping) {
      this.#fillSlots();
      const free = Math.max(0, this.#freeSlots());
      const { batchSize } = this.options;
      const want = this.#ready.length > 0 ? 0 : Math.min(batchSize, free + batchSize - 1);
      if (want <= 0) {
        await this.#until("slot", 1_000);
        continue;
      }
      let got: number;
      try {
        await this.#maybeMaintain();
        const deliveries = await this.driver.claim(this.queue, want);
        const renewAt = Date.now();
        for (const d of deliveries) {
          this.#ready.push({ delivery: d, renewAt: renewAt + d.visibilityMs / 3 });
        }
        if (this.#stopping) break;
        this.#fillSlots();
        got = deliveries.length;
        failures = 0;
      } catch (err) {
        failures++;
        this.logger.warn({ err, queue: this.queue }, "queue poll failed; will retry");
        const backoff = this.options.pollIntervalMs * 2 ** Math.min(failures, 10);
        await this.#until("wake", Math.min(ERROR_BACKOFF_MAX_MS, backoff));
        continue;
      }
      // Fewer than asked: the queue is drained for now, so wait before polling again.
      if (got < want && this.#ready.length === 0) {
        await this.#until("wake", this.options.pollIntervalMs);
      }
    }
  }

  /** Starts messages claimed ahead while slots are free. */
  #fillSlots(): void {
    if (this.#stopping) return;
    let free = this.#freeSlots();
    while (free > 0 && this.#ready.length > 0) {
      const next = this.#ready.shift() as Ready;
      this.#start(next.delivery, next.renewAt);
      free--;
    }
  }

  async #maybeMaintain(): Promise<void> {
    const now = Date.now();
    if (now - this.#lastMaintain < MAINTAIN_EVERY_MS) return;
    this.#lastMaintain = now;
    await this.driver.maintain(this.queue);
  }

  #start(delivery: Delivery, renewAt = Date.now() + delivery.visibilityMs / 3): void {
    const entry: InFlight = {
      key: `${delivery.token}:${delivery.message.id}`,
      delivery,
      controller: new AbortController(),
      renewAt,
      finished: false,
      settling: false,
      abandoned: false,
      detached: false,
      settled: Promise.resolve(),
    };
    this.#inFlight.set(entry.key, entry);
    entry.settled = this.#run(entry);
  }

  async #run(entry: InFlight): Promise<void> {
    const outcome = await this.#handle(entry);
    entry.finished = true;
    entry.settling = false;
    if (entry.abandoned || entry.detached) {
      this.#forget(entry);
      return;
    }
    this.#outcomes.add(outcome);
    this.#slotFreed();
  }

  /** Runs the handler, then waits for the work it deferred; a throw or rejection is a failure. */
  async #handle(entry: InFlight): Promise<Outcome> {
    const { message } = entry.delivery;
    const deferred: Promise<unknown>[] = [];
    const finish = {
      defer: (work: Promise<unknown>) => {
        // Awaited below; until then a rejection must not count as unhandled.
        work.catch(() => undefined);
        deferred.push(work);
      },
    };
    try {
      await this.handler(message, entry.controller.signal, finish);
      if (deferred.length > 0) {
        // The handler is done with its slot: the next message starts while this one settles.
        entry.finished = true;
        entry.settling = true;
        this.#slotFreed();
        await Promise.all(deferred);
      }
      return { entry };
    } catch (err) {
      const permanent = err instanceof PermanentQueueError;
      if (!entry.abandoned && !entry.detached) {
        const dead = permanent || message.attempt > entry.delivery.retry.limit;
        const where = { err, queue: this.queue, message_id: message.id, attempt: message.attempt };
        if (dead) this.logger.error(where, "message failed; dead-lettered");
        else this.logger.warn(where, "message failed; will be retried");
      }
      const error = redactText(describeError(err)).slice(0, MAX_ERROR_LENGTH);
      return { entry, error, permanent };
    }
  }

  /** A slot is free: the next message claimed ahead starts now, and the loop hears of it. */
  #slotFreed(): void {
    this.#fillSlots();
    this.#notify("slot");
  }

  #forget(entry: InFlight): void {
    this.#inFlight.delete(entry.key);
    this.#notify("slot");
  }

  /** Renews the hold on every delivery whose renewal is due; aborts those found lost. */
  async #renew(): Promise<void> {
    if (this.#renewing || (this.#inFlight.size === 0 && this.#ready.length === 0)) return;
    const now = Date.now();
    const due = [...this.#inFlight.values()].filter(
      (e) => !e.abandoned && !e.detached && e.renewAt <= now,
    );
    const readyDue = this.#ready.filter((r) => r.renewAt <= now);
    if (due.length === 0 && readyDue.length === 0) return;
    this.#renewing = true;
    try {
      const held = await this.driver.extend(this.queue, [
        ...due.map((e) => e.delivery),
        ...readyDue.map((r) => r.delivery),
      ]);
      const after = Date.now();
      for (const r of readyDue) {
        if (held.has(r.delivery.message.id)) r.renewAt = after + r.delivery.visibilityMs / 3;
      }
      // One claimed ahead whose hold is gone is simply not started.
      this.#ready = this.#ready.filter(
        (r) => !readyDue.includes(r) || held.has(r.delivery.message.id),
      );
      for (const e of due) {
        if (held.has(e.delivery.message.id)) {
          e.renewAt = after + e.delivery.visibilityMs / 3;
        } else if ((!e.finished || e.settling) && !e.abandoned) {
          this.#holdLost(e);
        }
      }
    } catch (err) {
      this.logger.warn({ err, queue: this.queue }, "could not renew message holds; will retry");
    } finally {
      this.#renewing = false;
    }
  }

  /** A running message is not held by us any more: another worker may have it now. */
  #holdLost(e: InFlight): void {
    const where = { queue: this.queue, message_id: e.delivery.message.id };
    if (this.options.keepRunningWhenHoldLost) {
      e.detached = true;
      this.logger.warn(where, "lost the hold on a message; its handler goes on under its lease");
      return;
    }
    e.abandoned = true;
    e.controller.abort(new VisibilityLostError(e.delivery.message.id));
    this.logger.warn(where, "lost the hold on a message; its handler was aborted");
  }

  #notify(kind: WaitKind): void {
    const waiters = [...this.#waiters[kind]];
    this.#waiters[kind].clear();
    for (const w of waiters) w();
  }

  /** Waits for a notification of this kind, or ms at most. */
  #until(kind: WaitKind, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters[kind].delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.#waiters[kind].add(done);
    });
  }
}
