import type { Kysely, Transaction } from "kysely";
import { chunks } from "tidemark/kit";
import type { NormalizedItem } from "../stages/normalize/types.ts";
import type { RakutenTables } from "../tables.ts";
import { sameValues, shopCodeOf } from "./item-values.ts";

type Db = Kysely<RakutenTables> | Transaction<RakutenTables>;
type SnapshotTable = "apl.market_snapshot" | "apl.review_snapshot";

// Rows per statement: well inside SQLite's and Postgres's bound-parameter limits.
export const ROWS = 100;
export const IDS = 500;

/**
 * Upserts the documents' shops (one document per shop code); a shop whose name, URL and flag
 * are unchanged is not touched, `updated_at` included (many items share one shop).
 */
export async function upsertShops(
  db: Db,
  docs: readonly NormalizedItem[],
  now: string,
): Promise<void> {
  for (const part of chunks(docs, ROWS)) {
    await db
      .insertInto("apl.shop")
      .values(
        part.map((doc) => ({
          rakuten_shop_code: shopCodeOf(doc),
          shop_name: doc.shopName,
          shop_url: doc.shopUrl,
          shop_of_the_year_flag: doc.shopOfTheYearFlag ?? 0,
          created_at: now,
          updated_at: now,
        })),
      )
      .onConflict((oc) =>
        oc
          .column("rakuten_shop_code")
          .doUpdateSet((eb) => ({
            shop_name: eb.ref("excluded.shop_name"),
            shop_url: eb.ref("excluded.shop_url"),
            shop_of_the_year_flag: eb.ref("excluded.shop_of_the_year_flag"),
            updated_at: now,
          }))
          .where((eb) =>
            eb.or([
              eb("apl.shop.shop_name", "is distinct from", eb.ref("excluded.shop_name")),
              eb("apl.shop.shop_url", "is distinct from", eb.ref("excluded.shop_url")),
              eb(
                "apl.shop.shop_of_the_year_flag",
                "is distinct from",
                eb.ref("excluded.shop_of_the_year_flag"),
              ),
            ]),
          ),
      )
      .execute();
  }
}

/** One item's candidate snapshot row. */
export interface SnapshotCandidate<V extends Record<string, string | number | null>> {
  readonly itemId: number;
  /** The item has no snapshot yet (it was just inserted): nothing to compare with. */
  readonly isNew: boolean;
  readonly contentHash: string;
  readonly values: V;
}

/**
 * Inserts a snapshot row for each candidate unless its item's latest row in `table` holds the
 * same values (a re-apply, or a change elsewhere in the item, adds no duplicate). Returns the
 * number of rows inserted.
 */
export async function insertChangedSnapshots<V extends Record<string, string | number | null>>(
  db: Db,
  table: SnapshotTable,
  candidates: ReadonlyArray<SnapshotCandidate<V>>,
  stamp: { readonly runId: string; readonly now: string },
): Promise<number> {
  const first = candidates[0];
  if (first === undefined) return 0;
  // Only the compared columns are read (the same keys for every candidate).
  const old = candidates.filter((c) => !c.isNew).map((c) => c.itemId);
  const last = await latestSnapshots(db, table, Object.keys(first.values), old);
  // The snapshot's columns are set on the values object: merging two objects by spreads costs
  // V8 ~10 µs a row.
  const rows = candidates
    .filter((c) => {
      const prev = last.get(c.itemId);
      return prev === undefined || !sameValues(prev, c.values);
    })
    .map((c) =>
      Object.assign(c.values, {
        item_id: c.itemId,
        collected_at: stamp.now,
        run_id: stamp.runId,
        content_hash: c.contentHash,
      }),
    );
  for (const part of chunks(rows, ROWS)) await db.insertInto(table).values(part).execute();
  return rows.length;
}

/** `columns` of the latest snapshot row of each item (by id), for the items that have one. */
async function latestSnapshots(
  db: Db,
  table: SnapshotTable,
  columns: readonly string[],
  itemIds: readonly number[],
): Promise<Map<number, object>> {
  // Kysely is told the table is "snap" with these columns; the real ones are those passed in.
  const snap = db as unknown as Kysely<{ snap: { id: number; item_id: number } }>;
  const t = table as unknown as "snap";
  const cols = columns as unknown as Array<"id">;
  const out = new Map<number, object>();
  for (const part of chunks(itemIds, IDS)) {
    const rows = await snap
      .selectFrom(t)
      .select(["item_id", ...cols])
      .where("id", "in", (eb) =>
        eb
          .selectFrom(t)
          .select((e) => e.fn.max("id").as("id"))
          .where("item_id", "in", part)
          .groupBy("item_id"),
      )
      .execute();
    for (const r of rows) out.set(Number(r.item_id), r);
  }
  return out;
}
