import type { Kysely } from "kysely";
import type { Clock } from "tidemark";
import { CursorStore, type CursorTables, isoTimestamp } from "tidemark/kit";
import type { MercariTables } from "../tables.ts";

/** The tm_cursors key marking a product's first crawl as begun but not finished. */
export function firstCrawlKey(productId: number): string {
  return `mercari.crawl:first-crawl:${productId}`;
}

/**
 * The "first crawl unfinished" markers: a first crawl's first paged write sets its product's,
 * the crawl's last transaction clears it, so an interrupted first crawl is a first crawl again
 * next time (docs/pipelines/mercari.md, "Empty, gone or failed").
 */
export class FirstCrawlMarks {
  readonly #cursors: CursorStore;

  constructor(
    db: Kysely<MercariTables>,
    private readonly clock: Clock,
  ) {
    // The cursor store only touches tm_cursors, which every Tidemark database has.
    this.#cursors = new CursorStore(db as unknown as Kysely<CursorTables>, clock);
  }

  /** Whether a first crawl of the product wrote some pages and was then interrupted. */
  async unfinished(productId: number): Promise<boolean> {
    return (await this.#cursors.get(firstCrawlKey(productId))) !== undefined;
  }

  /** Marks the product's first crawl as begun. */
  async mark(productId: number): Promise<void> {
    await this.#cursors.set(firstCrawlKey(productId), {
      started_at: isoTimestamp(this.clock.now()),
    });
  }

  /** The first crawl is complete. */
  async clear(productId: number): Promise<void> {
    await this.#cursors.reset(firstCrawlKey(productId));
  }
}
