import type { Logger } from "../../infra/logging/logger.ts";
import type { ProgressReporter } from "../../infra/logging/progress.ts";
import { type Clock, isoTimestamp } from "../clock/clock.ts";
import type { RunProgress, RunRepo } from "./run-repo.ts";

/** At most one progress write per run per this many ms (plus one at each reporter's stop). */
export const PROGRESS_WRITE_INTERVAL_MS = 1000;

/**
 * Keeps a run's latest progress in memory and writes it to the run's row, throttled, so the
 * dashboard shows it while the run works. A failed write is logged at debug, never fails the
 * run; after close() (the run ended) nothing more is written.
 */
export class RunProgressRecorder {
  #snapshot: RunProgress | undefined;
  #dirty = false;
  #closed = false;
  #lastWrite = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly runs: Pick<RunRepo, "writeProgress">,
    private readonly runId: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Wraps `inner` (a TTY bar or silent) so every tick also updates the run's stored progress. */
  reporter(label: string, total: number | undefined, inner: ProgressReporter): ProgressReporter {
    let done = 0;
    let max: number | null = total ?? null;
    let figures: Record<string, number> = {};
    const update = (now: boolean) => {
      this.#snapshot = { label, done, total: max, figures, updated_at: this.#now() };
      this.#dirty = true;
      this.#schedule(now);
    };
    update(false);
    return {
      tick: (n = 1, f) => {
        inner.tick(n, f);
        done += n;
        if (f) figures = { ...f };
        update(false);
      },
      setTotal: (t) => {
        inner.setTotal(t);
        max = t;
        update(false);
      },
      stop: () => {
        inner.stop();
        update(true);
      },
    };
  }

  /** Writes the last snapshot if not yet written, then stops writing. Call before the run ends. */
  async close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (!this.#closed && this.#dirty) this.#write();
    this.#closed = true;
    await this.#writing;
  }

  #now(): string {
    return isoTimestamp(this.clock.now());
  }

  /** Writes now when the interval has passed (or `now`), else once when it has. */
  #schedule(now: boolean): void {
    if (this.#closed) return;
    const wait = this.#lastWrite + PROGRESS_WRITE_INTERVAL_MS - performance.now();
    if (now || wait <= 0) {
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#write();
    } else if (!this.#timer) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        if (!this.#closed && this.#dirty) this.#write();
      }, wait);
      this.#timer.unref();
    }
  }

  /** Chains one write of the current snapshot after any write in flight. */
  #write(): void {
    const snapshot = this.#snapshot;
    if (!snapshot) return;
    this.#dirty = false;
    this.#lastWrite = performance.now();
    this.#writing = this.#writing.then(async () => {
      try {
        await this.runs.writeProgress(this.runId, snapshot);
      } catch (err) {
        this.logger.debug({ err }, "could not store the run's progress");
      }
    });
  }
}
