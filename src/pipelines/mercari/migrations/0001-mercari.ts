import { type ColumnDefinitionBuilder, type Kysely, sql } from "kysely";
import { dialectOf } from "tidemark/kit";

/**
 * The pipeline's three tables (docs/pipelines/mercari.md) with every column, type, NOT NULL,
 * default and index. `DEFAULT CURRENT_TIMESTAMP` is written as an ISO-8601 UTC text expression
 * in each dialect (SQLite's CURRENT_TIMESTAMP has no `T`/`Z`); the repositories always write
 * the value.
 */
export async function up(db: Kysely<object>): Promise<void> {
  const pg = dialectOf(db) === "postgres";
  const now = pg
    ? sql`(to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`
    : sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;
  const id = (c: ColumnDefinitionBuilder) =>
    pg ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement();

  await db.schema
    .createTable("products")
    .addColumn("id", "integer", id)
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull().defaultTo(now))
    .addColumn("updated_at", "text", (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable("mercari_crawl_settings")
    .addColumn("id", "integer", id)
    .addColumn("product_id", "integer", (c) => c.notNull().references("products.id"))
    .addColumn("keyword", "text", (c) => c.notNull())
    .addColumn("category_id", "integer")
    .addColumn("min_price", "integer")
    .addColumn("max_price", "integer")
    .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("created_at", "text", (c) => c.notNull().defaultTo(now))
    .addColumn("updated_at", "text", (c) => c.notNull().defaultTo(now))
    .execute();
  // products ||--|| mercari_crawl_settings: one setting per product.
  await db.schema
    .createIndex("mercari_crawl_settings_product_unique_idx")
    .on("mercari_crawl_settings")
    .column("product_id")
    .unique()
    .execute();

  await db.schema
    .createTable("mercari_crawl_results")
    .addColumn("id", "integer", id)
    .addColumn("product_id", "integer", (c) => c.notNull().references("products.id"))
    .addColumn("external_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("price", "integer", (c) => c.notNull())
    .addColumn("selling_url", "text", (c) => c.notNull())
    .addColumn("image_url", "text", (c) => c.notNull())
    .addColumn("selling_status", "integer", (c) => c.notNull())
    .addColumn("seller_type", "integer", (c) => c.notNull())
    .addColumn("seller_id", "text")
    .addColumn("sold_out_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull().defaultTo(now))
    .addColumn("updated_at", "text", (c) => c.notNull().defaultTo(now))
    .execute();
  const results = "mercari_crawl_results";
  await db.schema
    .createIndex("product_external_unique_idx")
    .on(results)
    .columns(["product_id", "external_id"])
    .unique()
    .execute();
  for (const column of ["product_id", "external_id", "created_at", "updated_at"]) {
    await db.schema.createIndex(`${column}_idx`).on(results).column(column).execute();
  }
}

/** Drops the three tables (results and settings before the products they point at). */
export async function down(db: Kysely<object>): Promise<void> {
  for (const table of ["mercari_crawl_results", "mercari_crawl_settings", "products"]) {
    await db.schema.dropTable(table).execute();
  }
}
