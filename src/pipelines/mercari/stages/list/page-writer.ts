import type { Transaction } from "kysely";
import { isoTimestamp } from "tidemark/kit";
import { type CrawlRepos, crawlRepos } from "../../repos/crawl-repos.ts";
import type { ResultInput, RowRef } from "../../repos/crawl-result-repo.ts";
import type { MercariTables } from "../../tables.ts";
import type { CrawlContext } from "./crawl-context.ts";
import { type Inspection, inspect } from "./inspect.ts";
import type { FencedCommit } from "./product-lease.ts";
import { detailMessage, type EnqueueCount, enqueueCrawlMessages } from "./send-messages.ts";

/**
 * Matching rows gathered before a write: one upsert statement's worth. Small searches (a
 * later run's few pages) are written at the end in one transaction, as before; a long first
 * crawl is written every few pages while the next pages are read.
 */
export const FLUSH_ROWS = 500;

/**
 * Writes a crawl's matching rows as pages come in: every FLUSH_ROWS rows an upsert through the
 * fenced commit (one write in flight while the next page is read), then a syncDetail for each
 * sold row of that write still without a sold date, so detail checks start while the search
 * is still paging. A first crawl's first write also leaves the "first crawl unfinished"
 * marker, so an interrupted first crawl is a first crawl again next time. Each fenced
 * transaction gets the crawl's repositories bound to it.
 */
export class PageWriter {
  inserted = 0;
  /** The sold-date checks these writes sent. */
  readonly soldOutChecks: EnqueueCount = { enqueued: 0, already_waiting: 0 };
  /** Rows a sold-date check was sent for (the final sync skips them). */
  readonly sent = new Set<number>();
  #buffer: ResultInput[] = [];
  #pending: Promise<void> = Promise.resolve();
  #failure: { error: unknown } | undefined;
  #marked = false;

  constructor(
    private readonly ctx: Pick<CrawlContext, "outbox" | "clock">,
    private readonly productId: number,
    private readonly firstRun: boolean,
    private readonly commit: FencedCommit,
    private readonly flushRows = FLUSH_ROWS,
  ) {}

  /** Buffers matching rows; a full buffer is written in the background. */
  async add(rows: readonly ResultInput[]): Promise<void> {
    this.#throwIfFailed();
    this.#buffer.push(...rows);
    if (this.#buffer.length < this.flushRows) return;
    await this.#pending; // at most one write in flight
    this.#throwIfFailed();
    const batch = this.#buffer;
    this.#buffer = [];
    this.#pending = this.#write(batch).catch((error: unknown) => {
      this.#failure = { error };
    });
  }

  /** Waits for the write in flight and throws its error, if it failed. */
  async settle(): Promise<void> {
    await this.#pending;
    this.#throwIfFailed();
  }

  /**
   * The crawl's last transaction, once the whole search is read: writes what is left, runs
   * inspect and clears a first crawl's marker. Returns how many rows inspect deleted.
   */
  async finish(inspection: Inspection): Promise<number> {
    await this.settle();
    const batch = this.#buffer;
    this.#buffer = [];
    const { deleted, sold } = await this.commit(async (tx) => {
      const repos = this.#repos(tx);
      const sold = await this.#upsert(repos, batch, false);
      const deleted = await inspect(repos.results, this.productId, inspection);
      if (this.firstRun) await repos.firstCrawl.clear(this.productId);
      return { deleted, sold };
    });
    await this.#sendSoldOutChecks(sold);
    return deleted;
  }

  async #write(batch: ResultInput[]): Promise<void> {
    const sold = await this.commit((tx) => this.#upsert(this.#repos(tx), batch, true));
    await this.#sendSoldOutChecks(sold);
  }

  #repos(tx: Transaction<MercariTables>): CrawlRepos {
    return crawlRepos(tx, this.ctx.clock);
  }

  /** Upserts the rows; returns the ids of those sold without a sold date. */
  async #upsert(repos: CrawlRepos, batch: ResultInput[], mark: boolean): Promise<RowRef[]> {
    if (mark && this.firstRun && !this.#marked) {
      await repos.firstCrawl.mark(this.productId);
      this.#marked = true;
    }
    if (batch.length === 0) return [];
    const { inserted } = await repos.results.upsert(batch, isoTimestamp(this.ctx.clock.now()));
    this.inserted += inserted;
    return repos.results.soldWithoutDateAmong(
      this.productId,
      batch.map((r) => r.external_id),
    );
  }

  async #sendSoldOutChecks(rows: readonly RowRef[]): Promise<void> {
    const fresh = rows.filter((r) => !this.sent.has(r.id));
    for (const r of fresh) this.sent.add(r.id);
    const count = await enqueueCrawlMessages(this.ctx.outbox, fresh.map(detailMessage));
    this.soldOutChecks.enqueued += count.enqueued;
    this.soldOutChecks.already_waiting += count.already_waiting;
  }

  #throwIfFailed(): void {
    if (this.#failure) throw this.#failure.error;
  }
}
