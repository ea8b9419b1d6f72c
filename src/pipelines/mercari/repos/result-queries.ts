import { type Kysely, sql } from "kysely";
import { NO_PRICE_PLACEHOLDER } from "../client/schemas.ts";
import { type MercariTables, SELLING_STATUS } from "../tables.ts";
import type { CrawlResult } from "./crawl-result-repo.ts";

/** Filters, order and page of a results query. */
export interface ResultsQuery {
  status?: "on_sale" | "sold";
  min_price?: number;
  max_price?: number;
  /** A column, `-` first for descending. */
  sort: string;
  limit: number;
  offset: number;
}

/** A stored listing as the API and CLI show it. */
export type ResultView = CrawlResult & { status: "on_sale" | "sold" };

/** Adds the readable status to a row. */
export function toResultView(row: CrawlResult): ResultView {
  return { ...row, status: row.selling_status === SELLING_STATUS.onSale ? "on_sale" : "sold" };
}

/** Read-only queries over `mercari_crawl_results` (results, cheapest, sold prices). */
export class ResultQueries {
  constructor(private readonly db: Kysely<MercariTables>) {}

  /** A product's results, filtered, sorted and paged; total counts every match. */
  async results(
    productId: number,
    q: ResultsQuery,
  ): Promise<{ total: number; items: ResultView[] }> {
    let base = this.db.selectFrom("mercari_crawl_results").where("product_id", "=", productId);
    if (q.status) {
      const s = q.status === "on_sale" ? SELLING_STATUS.onSale : SELLING_STATUS.sold;
      base = base.where("selling_status", "=", s);
    }
    if (q.min_price !== undefined) base = base.where("price", ">=", q.min_price);
    if (q.max_price !== undefined) base = base.where("price", "<=", q.max_price);
    const total = await base
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .executeTakeFirstOrThrow();
    const desc = q.sort.startsWith("-");
    const column = q.sort.replace(/^-/, "") as
      | "price"
      | "created_at"
      | "updated_at"
      | "sold_out_at";
    const rows = await base
      .selectAll()
      // Rows without a value (no sold date yet) last in either direction, on both dialects.
      .orderBy(sql`case when ${sql.ref(column)} is null then 1 else 0 end`)
      .orderBy(column, desc ? "desc" : "asc")
      .orderBy("id", desc ? "desc" : "asc")
      .limit(q.limit)
      .offset(q.offset)
      .execute();
    return { total: Number(total.n), items: rows.map(toResultView) };
  }

  /** The cheapest on-sale listings of a product. */
  async cheapest(productId: number, limit: number): Promise<ResultView[]> {
    const rows = await this.db
      .selectFrom("mercari_crawl_results")
      .selectAll()
      .where("product_id", "=", productId)
      .where("selling_status", "=", SELLING_STATUS.onSale)
      // A placeholder price (stored before placeholders were recognised) is no price.
      .where("price", "<>", NO_PRICE_PLACEHOLDER)
      .orderBy("price", "asc")
      .orderBy("id", "asc")
      .limit(limit)
      .execute();
    return rows.map(toResultView);
  }

  /** Price and sold date of sold listings dated within [from, to). */
  async soldPrices(
    productId: number,
    from: string,
    to: string,
  ): Promise<Array<{ price: number; sold_out_at: string }>> {
    const rows = await this.db
      .selectFrom("mercari_crawl_results")
      .select(["price", "sold_out_at"])
      .where("product_id", "=", productId)
      .where("selling_status", "=", SELLING_STATUS.sold)
      .where("sold_out_at", "is not", null)
      .where("sold_out_at", ">=", from)
      .where("sold_out_at", "<", to)
      .where("price", "<>", NO_PRICE_PLACEHOLDER)
      .execute();
    return rows.flatMap((r) =>
      r.sold_out_at ? [{ price: r.price, sold_out_at: r.sold_out_at }] : [],
    );
  }

  /** Status and sold date of every stored listing of a product (the demo's counts). */
  async statuses(
    productId: number,
  ): Promise<Array<{ selling_status: number; sold_out_at: string | null }>> {
    return this.db
      .selectFrom("mercari_crawl_results")
      .select(["selling_status", "sold_out_at"])
      .where("product_id", "=", productId)
      .execute();
  }

  /** The names of a product's stored listings (the demo's brand spellings). */
  async names(productId: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom("mercari_crawl_results")
      .select("name")
      .where("product_id", "=", productId)
      .execute();
    return rows.map((r) => r.name);
  }
}
