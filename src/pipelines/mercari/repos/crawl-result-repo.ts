import { type Kysely, type Selectable, sql } from "kysely";
import { chunks } from "tidemark/kit";
import { type CrawlResultRow, type MercariTables, SELLING_STATUS } from "../tables.ts";

/** A crawl result as read back. */
export type CrawlResult = Selectable<CrawlResultRow>;

/** A row's id and Mercari id: what a syncDetail message carries. */
export interface RowRef {
  id: number;
  external_id: string;
}

/** One listing as the search phase writes it (sold_out_at is never written here). */
export interface ResultInput {
  product_id: number;
  external_id: string;
  name: string;
  price: number;
  selling_url: string;
  image_url: string;
  selling_status: number;
  seller_type: number;
  /** null: not named by the search (kept as stored when the row has one). */
  seller_id: string | null;
  /** The fingerprint of the setting whose search found it. */
  setting_fingerprint: string;
}

// Rows per statement: 13 bound values each, well under SQLite's parameter limit.
const CHUNK = 500;

/** `mercari_crawl_results`: the search phase's bulk writes and the detail phase's row writes. */
export class CrawlResultRepo {
  constructor(private readonly db: Kysely<MercariTables>) {}

  /**
   * Bulk upsert on `product_external_unique_idx`: a new listing is inserted, a known one gets
   * the search's name, price, links, status and seller; `sold_out_at` and `created_at` are
   * left as they are. Returns how many rows were new.
   */
  async upsert(rows: readonly ResultInput[], now: string): Promise<{ inserted: number }> {
    if (rows.length === 0) return { inserted: 0 };
    const productId = rows[0]?.product_id ?? 0;
    const before = await this.countFor(productId);
    for (const part of chunks(rows, CHUNK)) {
      await this.db
        .insertInto("mercari_crawl_results")
        .values(part.map((r) => ({ ...r, sold_out_at: null, created_at: now, updated_at: now })))
        .onConflict((oc) =>
          oc.columns(["product_id", "external_id"]).doUpdateSet((eb) => ({
            name: eb.ref("excluded.name"),
            // A Shops row holding a running time sale's price keeps it until the sale ends:
            // search hits carry the list price.
            price: sql<number>`case when ${sql.ref("mercari_crawl_results.time_sale_until")} > ${now} then ${sql.ref("mercari_crawl_results.price")} else ${sql.ref("excluded.price")} end`,
            selling_url: eb.ref("excluded.selling_url"),
            image_url: eb.ref("excluded.image_url"),
            selling_status: eb.ref("excluded.selling_status"),
            seller_type: eb.ref("excluded.seller_type"),
            // A search that names no seller (every Shops hit) keeps the one a detail check found.
            seller_id: eb.fn.coalesce(
              eb.ref("excluded.seller_id"),
              eb.ref("mercari_crawl_results.seller_id"),
            ),
            setting_fingerprint: eb.ref("excluded.setting_fingerprint"),
            updated_at: eb.ref("excluded.updated_at"),
          })),
        )
        .execute();
    }
    return { inserted: (await this.countFor(productId)) - before };
  }

  /** Rows stored for a product. */
  async countFor(productId: number): Promise<number> {
    const row = await this.db
      .selectFrom("mercari_crawl_results")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("product_id", "=", productId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Id, Mercari id, price and setting fingerprint of every row of a product (for inspect). */
  async matchFields(
    productId: number,
  ): Promise<
    Array<{ id: number; external_id: string; price: number; setting_fingerprint: string | null }>
  > {
    return this.db
      .selectFrom("mercari_crawl_results")
      .select(["id", "external_id", "price", "setting_fingerprint"])
      .where("product_id", "=", productId)
      .execute();
  }

  /** Deletes rows by id; returns how many went. */
  async deleteIds(ids: readonly number[]): Promise<number> {
    let deleted = 0;
    for (const part of chunks(ids, CHUNK)) {
      const res = await this.db
        .deleteFrom("mercari_crawl_results")
        .where("id", "in", part)
        .executeTakeFirst();
      deleted += Number(res.numDeletedRows);
    }
    return deleted;
  }

  /** On-sale rows of a product: id and Mercari id (for the existence check). */
  async onSale(productId: number): Promise<RowRef[]> {
    return this.db
      .selectFrom("mercari_crawl_results")
      .select(["id", "external_id"])
      .where("product_id", "=", productId)
      .where("selling_status", "=", SELLING_STATUS.onSale)
      .orderBy("id")
      .execute();
  }

  /** Sold rows whose sold date is not known yet: id and Mercari id. */
  async soldWithoutDate(productId: number): Promise<RowRef[]> {
    return this.db
      .selectFrom("mercari_crawl_results")
      .select(["id", "external_id"])
      .where("product_id", "=", productId)
      .where("selling_status", "=", SELLING_STATUS.sold)
      .where("sold_out_at", "is", null)
      .orderBy("id")
      .execute();
  }

  /** Rows whose seller is not known yet (Shops hits until a detail check names the shop). */
  async sellerUnknown(productId: number): Promise<RowRef[]> {
    return this.db
      .selectFrom("mercari_crawl_results")
      .select(["id", "external_id"])
      .where("product_id", "=", productId)
      .where("seller_id", "is", null)
      .orderBy("id")
      .execute();
  }

  /** The sold rows without a sold date among these Mercari ids of a product. */
  async soldWithoutDateAmong(productId: number, externalIds: readonly string[]): Promise<RowRef[]> {
    const out: RowRef[] = [];
    for (const part of chunks(externalIds, CHUNK)) {
      const rows = await this.db
        .selectFrom("mercari_crawl_results")
        .select(["id", "external_id"])
        .where("product_id", "=", productId)
        .where("external_id", "in", part)
        .where("selling_status", "=", SELLING_STATUS.sold)
        .where("sold_out_at", "is", null)
        .orderBy("id")
        .execute();
      out.push(...rows);
    }
    return out;
  }

  /** The Mercari id of a row (all a detail check needs to read), or undefined. */
  async externalIdOf(id: number): Promise<string | undefined> {
    const row = await this.db
      .selectFrom("mercari_crawl_results")
      .select("external_id")
      .where("id", "=", id)
      .executeTakeFirst();
    return row?.external_id;
  }

  /** One row, or undefined. */
  async find(id: number): Promise<CrawlResult | undefined> {
    return this.db
      .selectFrom("mercari_crawl_results")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirst();
  }

  /** Writes what a detail page says about a row; false when the row is gone. */
  async applyDetail(
    id: number,
    detail: {
      name: string;
      price: number;
      selling_status: number;
      sold_out_at?: string;
      seller_id?: string;
      time_sale_until?: string | null;
    },
    now: string,
  ): Promise<boolean> {
    const res = await this.db
      .updateTable("mercari_crawl_results")
      .set({ ...detail, updated_at: now })
      .where("id", "=", id)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }
}
