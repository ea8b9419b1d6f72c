import type { ResourceLimits, Worker } from "node:worker_threads";
import { startWorkerThread } from "./start-worker-thread.ts";

/**
 * Worker threads of one module started ahead of need. A thread's start (Node's bootstrap of a
 * new isolate, then its module) costs tens of milliseconds of CPU; started while the caller is
 * still busy with sequential work (hashing an input, say), it runs on an otherwise idle core
 * and is ready when the caller takes it. An idle warm thread never holds the process open, and
 * `close()` stops every thread that was not taken; a taken thread is the taker's to stop.
 */
export class WarmThreads {
  readonly #idle: Array<{ worker: Worker; gone: () => void }> = [];
  #closed = false;

  /** `from` and `name` as for startWorkerThread: `<name>` beside the module at `from`. */
  constructor(
    private readonly from: string,
    private readonly name: string,
    private readonly resourceLimits: ResourceLimits,
  ) {}

  /** Threads started and not taken yet (one that exited meanwhile is no longer counted). */
  get idle(): number {
    return this.#idle.length;
  }

  /** Starts threads until `count` are idle (none once closed). */
  warm(count: number): this {
    while (!this.#closed && this.#idle.length < count) {
      this.#keep(startWorkerThread(this.from, this.name, this.resourceLimits));
    }
    return this;
  }

  /**
   * Takes back a thread that was taken and is idle again (the taker's listeners removed), for
   * the next take(): one module's threads can serve several stages of a run. Stopped at once
   * when closed.
   */
  give(worker: Worker): void {
    if (this.#closed) void worker.terminate();
    else this.#keep(worker);
  }

  #keep(worker: Worker): void {
    worker.unref();
    // A thread that fails to start (or dies idle) is dropped here; take() then starts a new
    // one, whose failure reaches the taker's own listeners.
    const gone = () => {
      const i = this.#idle.findIndex((t) => t.worker === worker);
      if (i >= 0) this.#idle.splice(i, 1);
    };
    worker.on("error", gone);
    worker.on("exit", gone);
    this.#idle.push({ worker, gone });
  }

  /** A warm thread (referenced again, and the caller's to stop) or, if none, a new one. */
  take(): Worker {
    const warm = this.#idle.shift();
    if (!warm) return startWorkerThread(this.from, this.name, this.resourceLimits);
    warm.worker.off("error", warm.gone);
    warm.worker.off("exit", warm.gone);
    warm.worker.ref();
    return warm.worker;
  }

  /** Stops the threads nobody took; later warm() calls start nothing. */
  async close(): Promise<void> {
    this.#closed = true;
    const idle = this.#idle.splice(0);
    await Promise.all(idle.map(({ worker }) => worker.terminate()));
  }
}
