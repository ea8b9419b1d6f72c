import { type Kysely, type SqlBool, sql, type Transaction } from "kysely";
import { chunks } from "tidemark/kit";
import type { NormalizedItem } from "../stages/normalize/types.ts";
import type { RakutenTables } from "../tables.ts";
import { IDS, insertChangedSnapshots, ROWS, upsertShops } from "./item-shared-writes.ts";
import {
  IMAGE_SEP,
  ITEM_UPDATED,
  imageSignature,
  itemValues,
  marketValues,
  reviewValues,
  wantedImages,
} from "./item-values.ts";

type Db = Kysely<RakutenTables> | Transaction<RakutenTables>;

/** One item of a batch after its upsert: its id and whether the upsert created it. */
export interface BatchItem {
  doc: NormalizedItem;
  contentHash: string;
  id: number;
  /** New items have no images, tags or snapshots yet: nothing to compare. */
  inserted: boolean;
  /**
   * The stored applied_sig equals the document's: the item's row, images, tags and latest
   * snapshots hold its values already, so nothing of it is read or written.
   */
  settled: boolean;
}

/**
 * The item applier's writes for many items at once (the set-based twin of ItemRepo): a few
 * multi-row statements per batch instead of a few statements per item, with the same results.
 */
export class ItemBatchRepo {
  constructor(
    private readonly db: Db,
    /** ISO-8601 UTC time written as updated_at / collected_at. */
    private readonly now: string,
  ) {}

  /** Upserts shops (one document per shop code); unchanged shops are not touched. */
  upsertShops(docs: readonly NormalizedItem[]): Promise<void> {
    return upsertShops(this.db, docs, this.now);
  }

  /**
   * Inserts or updates the items by item code; returns each one's id and whether it is new, in
   * the entries' order. Two entries with one item code throw (the caller applies them one by one).
   */
  async upsertItems(
    entries: ReadonlyArray<{ doc: NormalizedItem; contentHash: string }>,
  ): Promise<BatchItem[]> {
    const codes = entries.map((e) => e.doc.itemCode);
    if (new Set(codes).size !== codes.length) throw new Error("batch repeats an item code");
    // The items already there, with the digest of what was applied to them: an item whose
    // digest is the document's (a re-apply) is not written at all, nor its images, tags and
    // snapshots read.
    const existing = new Map<string, { id: number; applied_sig: string | null }>();
    for (const part of chunks(codes, IDS)) {
      const rows = await this.db
        .selectFrom("apl.item")
        .select(["id", "rakuten_item_code", "applied_sig"])
        .where("rakuten_item_code", "in", part)
        .execute();
      for (const r of rows) existing.set(r.rakuten_item_code, r);
    }
    const ids = new Map<string, number>();
    const settled = new Set<string>();
    const writes: Array<ReturnType<typeof itemValues> & { created_at: string }> = [];
    for (const e of entries) {
      const values = itemValues(e.doc, e.contentHash, this.now);
      const row = existing.get(e.doc.itemCode);
      if (row !== undefined) ids.set(e.doc.itemCode, Number(row.id));
      if (row !== undefined && row.applied_sig === values.applied_sig) {
        settled.add(e.doc.itemCode);
      } else {
        // Set on the literal rather than spread into a copy: V8 spreads objects slowly (~2 µs).
        writes.push(Object.assign(values, { created_at: this.now }));
      }
    }
    for (const part of chunks(writes, ROWS)) {
      const rows = await this.db
        .insertInto("apl.item")
        .values(part)
        .onConflict((oc) =>
          oc
            .column("rakuten_item_code")
            .doUpdateSet(
              (eb) =>
                // Each column takes the value the insert proposed (typed loosely: one per column).
                Object.fromEntries(ITEM_UPDATED.map((c) => [c, eb.ref(`excluded.${c}`)])) as Record<
                  (typeof ITEM_UPDATED)[number],
                  never
                >,
            )
            // The digest decides, again in SQL: the row may have changed since it was read.
            .where(
              sql<SqlBool>`${sql.ref("apl.item.applied_sig")} is distinct from ${sql.ref("excluded.applied_sig")}`,
            ),
        )
        .returning(["id", "rakuten_item_code"])
        .execute();
      for (const r of rows) ids.set(r.rakuten_item_code, Number(r.id));
    }
    return entries.map((e) => {
      const id = ids.get(e.doc.itemCode);
      if (id === undefined) throw new Error(`item ${e.doc.itemCode} was not written`);
      const code = e.doc.itemCode;
      return { ...e, id, inserted: !existing.has(code), settled: settled.has(code) };
    });
  }

  /** Makes every item's image rows equal to its document's lists (untouched when equal). */
  async syncImages(batch: readonly BatchItem[]): Promise<void> {
    const items = batch.filter((i) => !i.settled);
    const have = new Map<number, string>();
    const old = items.filter((i) => !i.inserted).map((i) => i.id);
    for (const part of chunks(old, IDS)) {
      // One signature per item rather than one row per image: a fifth of the rows to read.
      const rows = await this.db
        .selectFrom("apl.item_image")
        .select([
          "item_id",
          sql<string>`string_agg(${sql.ref("size")} || ':' || ${sql.ref("position")} || ':' || ${sql.ref("url")}, ${IMAGE_SEP} order by ${sql.ref("size")} desc, ${sql.ref("position")})`.as(
            "sig",
          ),
        ])
        .where("item_id", "in", part)
        .groupBy("item_id")
        .execute();
      for (const r of rows) have.set(Number(r.item_id), r.sig);
    }
    const stale: number[] = [];
    const rows: Array<{
      item_id: number;
      size: "small" | "medium";
      position: number;
      url: string;
      created_at: string;
    }> = [];
    for (const item of items) {
      const want = wantedImages(item.doc);
      const current = have.get(item.id);
      if ((current ?? "") === imageSignature(want)) continue;
      if (current !== undefined) stale.push(item.id);
      for (const w of want) {
        rows.push({
          size: w.size,
          position: w.position,
          url: w.url,
          item_id: item.id,
          created_at: this.now,
        });
      }
    }
    for (const part of chunks(stale, IDS)) {
      await this.db.deleteFrom("apl.item_image").where("item_id", "in", part).execute();
    }
    for (const part of chunks(rows, IDS)) {
      await this.db.insertInto("apl.item_image").values(part).execute();
    }
  }

  /** Makes every item's tags exactly its document's (rows already there are left as they are). */
  async syncTags(batch: readonly BatchItem[]): Promise<void> {
    const items = batch.filter((i) => !i.settled);
    const have = new Map<number, Set<number>>();
    const old = items.filter((i) => !i.inserted).map((i) => i.id);
    for (const part of chunks(old, IDS)) {
      const rows = await this.db
        .selectFrom("apl.item_tag")
        .select(["item_id", "rakuten_tag_id"])
        .where("item_id", "in", part)
        .execute();
      for (const r of rows) {
        const set = have.get(Number(r.item_id)) ?? new Set<number>();
        set.add(Number(r.rakuten_tag_id));
        have.set(Number(r.item_id), set);
      }
    }
    const remove: Array<[number, number]> = [];
    const add: Array<{ item_id: number; rakuten_tag_id: number; created_at: string }> = [];
    for (const item of items) {
      const want = new Set(item.doc.tagIds);
      const current = have.get(item.id) ?? new Set<number>();
      for (const tag of current) if (!want.has(tag)) remove.push([item.id, tag]);
      for (const tag of want) {
        if (!current.has(tag))
          add.push({ item_id: item.id, rakuten_tag_id: tag, created_at: this.now });
      }
    }
    for (const part of chunks(remove, IDS)) {
      await this.db
        .deleteFrom("apl.item_tag")
        .where((eb) =>
          eb(
            eb.refTuple("item_id", "rakuten_tag_id"),
            "in",
            part.map(([id, tag]) => eb.tuple(id, tag)),
          ),
        )
        .execute();
    }
    for (const part of chunks(add, IDS)) {
      await this.db
        .insertInto("apl.item_tag")
        .values(part)
        .onConflict((oc) => oc.columns(["item_id", "rakuten_tag_id"]).doNothing())
        .execute();
    }
  }

  /** Adds market and review snapshots of the items whose latest snapshot holds other values. */
  async insertSnapshots(batch: readonly BatchItem[], runId: string): Promise<void> {
    const items = batch.filter((i) => !i.settled);
    const stamp = { runId, now: this.now };
    const candidate = <V>(i: BatchItem, values: V) => ({
      itemId: i.id,
      isNew: i.inserted,
      contentHash: i.contentHash,
      values,
    });
    await insertChangedSnapshots(
      this.db,
      "apl.market_snapshot",
      items.map((i) => candidate(i, marketValues(i.doc))),
      stamp,
    );
    await insertChangedSnapshots(
      this.db,
      "apl.review_snapshot",
      items.map((i) => candidate(i, reviewValues(i.doc))),
      stamp,
    );
  }
}
