/**
 * A CSV read's output files synced to disk in the background while the worker threads write
 * on: every `every` bytes of facts, one fdatasync of each file after the other, never two
 * rounds at once. The state is sealed with fsync later anyway; written this way, most of the
 * hundreds of megabytes have reached the disk during the parse (CPU-bound, the disk idle)
 * instead of after it, where the run waited for them. Errors are left to the seal, which
 * syncs again and reports them.
 */
import { fdatasync } from "node:fs";

/** When to sync, and which files: the first `files` of the pool's outputs. */
export interface SyncPlan {
  every: number;
  files: number;
}

export class OutputSync {
  #running: Promise<void> | undefined;
  #syncedAt: number;

  /**
   * `ends`: where each file's written part ends (the facts first), as the workers move it;
   * `sync`: fdatasync (tests pass their own).
   */
  constructor(
    private readonly fds: readonly number[],
    private readonly ends: Float64Array,
    private readonly plan: SyncPlan,
    private readonly sync: typeof fdatasync = fdatasync,
  ) {
    this.#syncedAt = ends[0]!;
  }

  /** A batch was written: starts a round if `every` more bytes of facts are there since the last. */
  poke(): void {
    if (this.#running) return;
    // Read while the workers may move it: it only grows, and it only decides when to sync.
    const written = this.ends[0]!;
    if (written - this.#syncedAt < this.plan.every) return;
    this.#syncedAt = written;
    this.#running = this.#round().finally(() => {
      this.#running = undefined;
    });
  }

  /** Waits for the round under way, if any (before the files are closed). */
  async settle(): Promise<void> {
    await this.#running;
  }

  async #round(): Promise<void> {
    for (const fd of this.fds.slice(0, this.plan.files)) {
      await new Promise<void>((resolve) => this.sync(fd, () => resolve()));
    }
  }
}
