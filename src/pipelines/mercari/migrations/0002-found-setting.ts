import type { Kysely } from "kysely";
import { settingFingerprint } from "../stages/list/match.ts";

interface SettingRow {
  product_id: number;
  keyword: string;
  category_id: number | null;
  min_price: number | null;
  max_price: number | null;
}

/** The tables as this migration sees them (before the pipeline's typed view knows the columns). */
interface Tables {
  mercari_crawl_settings: SettingRow & { exclude_keyword: string | null };
  mercari_crawl_results: { product_id: number; seller_id: string | null };
}

/**
 * The match rule by search (docs/pipelines/mercari.md, "What matches means"):
 * - `mercari_crawl_settings.exclude_keyword`: words Mercari's search leaves out (optional);
 * - `mercari_crawl_results.setting_fingerprint`: the setting a row was found under. Rows stored
 *   before matched their product's current setting (inspect kept no other), so they get its
 *   fingerprint and stay until a changed setting's crawl no longer finds them.
 * - `mercari_crawl_results.time_sale_until`: the end of a Shops time sale whose price the row
 *   holds (a search hit's list price does not replace it until then).
 * - `seller_id` "0" (what search says for every Shops hit) is no id: set to null, so the next
 *   crawl sends those rows to a detail check, which names the shop.
 */
export async function up(db: Kysely<object>): Promise<void> {
  await db.schema
    .alterTable("mercari_crawl_settings")
    .addColumn("exclude_keyword", "text")
    .execute();
  await db.schema
    .alterTable("mercari_crawl_results")
    .addColumn("setting_fingerprint", "text")
    .execute();
  await db.schema
    .alterTable("mercari_crawl_results")
    .addColumn("time_sale_until", "text")
    .execute();
  const t = db as unknown as Kysely<
    Tables & { mercari_crawl_results: { setting_fingerprint: string | null } }
  >;
  const settings = await t
    .selectFrom("mercari_crawl_settings")
    .select(["product_id", "keyword", "category_id", "min_price", "max_price"])
    .execute();
  for (const s of settings) {
    await t
      .updateTable("mercari_crawl_results")
      .set({ setting_fingerprint: settingFingerprint({ ...s, exclude_keyword: null }) })
      .where("product_id", "=", s.product_id)
      .execute();
  }
  await t
    .updateTable("mercari_crawl_results")
    .set({ seller_id: null })
    .where("seller_id", "in", ["0", ""])
    .execute();
}

/** Drops the columns (the "0" seller ids are not restored: they were never ids). */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.alterTable("mercari_crawl_results").dropColumn("time_sale_until").execute();
  await db.schema.alterTable("mercari_crawl_results").dropColumn("setting_fingerprint").execute();
  await db.schema.alterTable("mercari_crawl_settings").dropColumn("exclude_keyword").execute();
}
