import { describeError, type Logger } from "tidemark";
import { shortHash } from "./query-set-hash.ts";

/** The log lines docs/ops/collect.md shows, word for word; structured fields ride along for log search. */
export class CollectLog {
  readonly #prefix: string;

  constructor(
    private readonly logger: Logger,
    private readonly jobName: string,
    private readonly querySetHash: string,
  ) {
    this.#prefix = `[google-books][${jobName}]`;
  }

  /** `Page 1: startIndex=0, returned=40, totalItems=150` (+ which query, for query sets). */
  page(
    page: number,
    startIndex: number,
    returned: number,
    totalItems: number,
    query: { text: string; index: number; count: number },
  ): void {
    const which =
      query.count > 1 ? ` (query ${query.index + 1}/${query.count}: ${query.text})` : "";
    this.logger.info(
      { page, startIndex, returned, totalItems, query: query.text },
      `${this.#prefix} Page ${page}: startIndex=${startIndex}, returned=${returned}, totalItems=${totalItems}${which}`,
    );
  }

  /** `Stopped: max_per_run reached (80/80), next startIndex=80`. */
  stoppedMaxPerRun(collected: number, maxPerRun: number, next: number): void {
    this.logger.info(
      { stopReason: "max_per_run", collected, maxPerRun, nextStartIndex: next },
      `${this.#prefix} Stopped: max_per_run reached (${collected}/${maxPerRun}), next startIndex=${next}`,
    );
  }

  /** `Stopped: quota limit reached, next startIndex=40`. */
  stoppedQuota(next: number, source: "budget" | "api"): void {
    this.logger.warn(
      { stopReason: "quota", quotaSource: source, nextStartIndex: next },
      `${this.#prefix} Stopped: quota limit reached, next startIndex=${next}`,
    );
  }

  /** `Stopped: API error, preserving startIndex=40` (the error itself is already redacted). */
  stoppedError(next: number, err: unknown): void {
    this.logger.error(
      { stopReason: "error", nextStartIndex: next, error: describeError(err) },
      `${this.#prefix} Stopped: API error, preserving startIndex=${next}`,
    );
  }

  /**
   * `[WARN][google-books][job] Exhausted: startIndex=120 >= totalItems=120 (query_set_hash=…)`
   * when the last page reached totalItems; when it came back empty (past the end, or Google
   * stopping near 1,000 results before its own totalItems) the line says so instead.
   */
  exhausted(startIndex: number, totalItems: number, endedEmpty: boolean): void {
    const what = endedEmpty
      ? `no more items at startIndex=${startIndex} (totalItems=${totalItems})`
      : `startIndex=${startIndex} >= totalItems=${totalItems}`;
    this.logger.warn(
      {
        stopReason: "exhausted",
        startIndex,
        totalItems,
        query_set_hash: shortHash(this.querySetHash),
      },
      `[WARN]${this.#prefix} Exhausted: ${what} (query_set_hash=${shortHash(this.querySetHash)})`,
    );
  }

  /** Step 5's line when a run finds its cursor exhausted: `[job] Skipped: exhausted (…)`. */
  skipped(): void {
    this.logger.warn(
      { query_set_hash: shortHash(this.querySetHash) },
      `[${this.jobName}] Skipped: exhausted (query_set_hash=${shortHash(this.querySetHash)})`,
    );
  }
}
