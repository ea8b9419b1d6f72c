import type { Kysely, Transaction } from "kysely";
import { CursorStore, type CursorTables, isoTimestamp } from "tidemark/kit";
import { CrawlResultRepo, type ResultInput, type RowRef } from "../../repos/crawl-result-repo.ts";
import type { MercariTables } from "../../tables.ts";
import type { CrawlContext } from "./crawl-context.ts";
import { detailMessage, type EnqueueCount, enqueueCrawlMessages } from "./send-messages.ts";

/** A write under the product's lease: nothing is written once the lease is lost. */
export type FencedCommit = <T>(
  effect: (tx: Transaction<MercariTables>) => Promise<T>,
) => Promise<T>;

/**
 * Matching rows gathered before a write: one upsert statement's worth. Small searches (a
 * later run's few pages) are written at the end in one transaction, as before; a long first
 * crawl is written every few pages while the next pages are read.
 */
export const FLUSH_ROWS = 500;

/** The tm_cursors key marking a product's first crawl as begun but not finished. */
export function firstCrawlKey(productId: number): string {
  return `mercari.crawl:first-crawl:${productId}`;
}

function cursors(
  db: Kysely<MercariTables> | Transaction<MercariTables>,
  ctx: Pick<CrawlContext, "clock">,
) {
  // The cursor store only touches tm_cursors, which every Tidemark database has.
  return new CursorStore(db as unknown as Kysely<CursorTables>, ctx.clock);
}

/** Whether a first crawl of the product wrote some pages and was then interrupted. */
export async function firstCrawlUnfinished(
  ctx: Pick<CrawlContext, "db" | "clock">,
  productId: number,
): Promise<boolean> {
  return (await cursors(ctx.db, ctx).get(firstCrawlKey(productId))) !== undefined;
}

/** Clears the marker in the crawl's last transaction: the first crawl is complete. */
export async function clearFirstCrawl(
  tx: Transaction<MercariTables>,
  ctx: Pick<CrawlContext, "clock">,
  productId: number,
): Promise<void> {
  await cursors(tx, ctx).reset(firstCrawlKey(productId));
}

/**
 * Writes a crawl's matching rows as pages come in: every FLUSH_ROWS rows an upsert through the
 * fenced commit (one write in flight while the next page is read), then a syncDetail for each
 * sold row of that write still without a sold date, so detail checks start while the search
 * is still paging. A first crawl's first write also leaves the "first crawl unfinished"
 * marker, so an interrupted first crawl is a first crawl again next time.
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

  /** Writes what is left and runs `last` in the same transaction (inspect, the marker). */
  async finish<T>(last: (tx: Transaction<MercariTables>) => Promise<T>): Promise<T> {
    await this.settle();
    const batch = this.#buffer;
    this.#buffer = [];
    const { result, sold } = await this.commit(async (tx) => {
      const sold = await this.#upsert(tx, batch, false);
      return { result: await last(tx), sold };
    });
    await this.#sendSoldOutChecks(sold);
    return result;
  }

  async #write(batch: ResultInput[]): Promise<void> {
    const sold = await this.commit((tx) => this.#upsert(tx, batch, true));
    await this.#sendSoldOutChecks(sold);
  }

  /** Upserts the rows; returns the ids of those sold without a sold date. */
  async #upsert(
    tx: Transaction<MercariTables>,
    batch: ResultInput[],
    mark: boolean,
  ): Promise<RowRef[]> {
    if (mark && this.firstRun && !this.#marked) {
      await cursors(tx, this.ctx).set(firstCrawlKey(this.productId), {
        started_at: isoTimestamp(this.ctx.clock.now()),
      });
      this.#marked = true;
    }
    if (batch.length === 0) return [];
    const repo = new CrawlResultRepo(tx);
    const { inserted } = await repo.upsert(batch, isoTimestamp(this.ctx.clock.now()));
    this.inserted += inserted;
    return repo.soldWithoutDateAmong(
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
