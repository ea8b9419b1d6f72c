import type { Kysely } from "kysely";
import { NotFoundError, UsageError } from "tidemark";
import type { MercariTables } from "../tables.ts";
import type { ProductCreateInput, ProductUpdateInput, ProductView } from "./product-schemas.ts";

/** The columns a product view is read from (products joined with its setting). */
function selectViews(db: Kysely<MercariTables>) {
  return db
    .selectFrom("products as p")
    .innerJoin("mercari_crawl_settings as s", "s.product_id", "p.id")
    .select([
      "p.id",
      "p.name",
      "s.keyword",
      "s.category_id",
      "s.exclude_keyword",
      "s.min_price",
      "s.max_price",
      "s.enabled",
      "p.created_at",
      "p.updated_at",
      "s.updated_at as setting_updated_at",
    ]);
}

type ViewRow = Awaited<ReturnType<ReturnType<typeof selectViews>["executeTakeFirstOrThrow"]>>;

function toView(r: ViewRow): ProductView {
  return {
    id: Number(r.id),
    name: r.name,
    keyword: r.keyword,
    category_id: r.category_id,
    exclude_keyword: r.exclude_keyword,
    min_price: r.min_price,
    max_price: r.max_price,
    enabled: Number(r.enabled) === 1,
    created_at: r.created_at,
    updated_at: r.setting_updated_at > r.updated_at ? r.setting_updated_at : r.updated_at,
  };
}

/** Products and their crawl settings (`products`, `mercari_crawl_settings`). */
export class ProductRepo {
  constructor(private readonly db: Kysely<MercariTables>) {}

  /** Creates the product and its setting in one transaction; returns it. */
  async create(input: ProductCreateInput, now: string): Promise<ProductView> {
    const id = await this.db.transaction().execute(async (tx) => {
      const row = await tx
        .insertInto("products")
        .values({ name: input.name, created_at: now, updated_at: now })
        .returning("id")
        .executeTakeFirstOrThrow();
      await tx
        .insertInto("mercari_crawl_settings")
        .values({
          product_id: Number(row.id),
          keyword: input.keyword,
          category_id: input.category_id ?? null,
          exclude_keyword: input.exclude_keyword ?? null,
          min_price: input.min_price ?? null,
          max_price: input.max_price ?? null,
          enabled: input.enabled ? 1 : 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
      return Number(row.id);
    });
    return this.get(id);
  }

  /** Every product, by id. */
  async list(): Promise<ProductView[]> {
    const rows = await selectViews(this.db).orderBy("p.id").execute();
    return rows.map(toView);
  }

  /** What a crawl covers: the product given (NotFoundError if unknown), or every enabled one. */
  async crawlTargets(productId?: number): Promise<ProductView[]> {
    return productId === undefined ? this.enabled() : [await this.get(productId)];
  }

  /** The product, or undefined. */
  async find(id: number): Promise<ProductView | undefined> {
    const row = await selectViews(this.db).where("p.id", "=", id).executeTakeFirst();
    return row ? toView(row) : undefined;
  }

  /** The product, or NotFoundError (exit 2 on the CLI, 404 on the API). */
  async get(id: number): Promise<ProductView> {
    const found = await this.find(id);
    if (!found) throw new NotFoundError(`product ${id} not found`);
    return found;
  }

  /** Products whose setting is enabled (what a cron crawl enqueues), by id. */
  async enabled(): Promise<ProductView[]> {
    const rows = await selectViews(this.db).where("s.enabled", "=", 1).orderBy("p.id").execute();
    return rows.map(toView);
  }

  /** Applies the changes (checked against the stored price range); returns the product. */
  async update(id: number, patch: ProductUpdateInput, now: string): Promise<ProductView> {
    const current = await this.get(id);
    const min = patch.min_price === undefined ? current.min_price : patch.min_price;
    const max = patch.max_price === undefined ? current.max_price : patch.max_price;
    if (min !== null && max !== null && min > max) {
      throw new UsageError(`max_price ${max} is below min_price ${min}`);
    }
    await this.db.transaction().execute(async (tx) => {
      if (patch.name !== undefined) {
        await tx
          .updateTable("products")
          .set({ name: patch.name, updated_at: now })
          .where("id", "=", id)
          .execute();
      }
      const setting: Record<string, unknown> = {};
      const keys = ["keyword", "category_id", "exclude_keyword", "min_price", "max_price"] as const;
      for (const key of keys) {
        if (patch[key] !== undefined) setting[key] = patch[key];
      }
      if (patch.enabled !== undefined) setting.enabled = patch.enabled ? 1 : 0;
      if (Object.keys(setting).length > 0) {
        await tx
          .updateTable("mercari_crawl_settings")
          .set({ ...setting, updated_at: now })
          .where("product_id", "=", id)
          .execute();
      }
    });
    return this.get(id);
  }

  /** Deletes the product with its setting and every crawl result; NotFoundError if unknown. */
  async remove(id: number): Promise<{ results_deleted: number }> {
    await this.get(id);
    return this.db.transaction().execute(async (tx) => {
      const res = await tx
        .deleteFrom("mercari_crawl_results")
        .where("product_id", "=", id)
        .executeTakeFirst();
      await tx.deleteFrom("mercari_crawl_settings").where("product_id", "=", id).execute();
      await tx.deleteFrom("products").where("id", "=", id).execute();
      return { results_deleted: Number(res.numDeletedRows) };
    });
  }
}
