import type { Kysely, Transaction } from "kysely";
import { type Database, typed } from "../../infra/db/open-database.ts";
import { chunks } from "../../infra/db/statement-batches.ts";
import { type Clock, isoTimestamp } from "../clock/clock.ts";
import { checkLedgerTableName, type LedgerRow, type LedgerTable } from "./ledger-table.ts";

/** A ledger row to write after its raw document was saved. */
export interface LedgerUpsert {
  sourceId: string;
  contentHash: string;
  s3Key: string;
  etag: string | null;
  /** When the raw document was saved (from the blob store's put). */
  savedAt: string;
}

/** A target whose apply completed for this exact content. */
export interface AppliedTarget {
  sourceId: string;
  contentHash: string;
}

/** A row pending re-apply: the target, its content hash and where its raw document is. */
export type PendingRow = Pick<LedgerRow, "source_id" | "content_hash" | "s3_key" | "saved_at">;

/** Where the next page of pending rows starts: after this row (its saved_at and source id). */
export interface PendingCursor {
  savedAt: string;
  sourceId: string;
}

/** What a run compares per target: its current hash, raw key and the version that applied it. */
export type CurrentRow = Pick<
  LedgerRow,
  "source_id" | "content_hash" | "s3_key" | "applied_version"
>;

/** What a status view shows per entity. */
export interface LedgerStats {
  rows: number;
  savedSince: number;
  pendingReapply: number;
  lastSavedAt: string | null;
}

// The table name is the pipeline's; Kysely is told it is "ledger" and given the real name.
type LedgerDb = { ledger: LedgerTable };

// Statement sizes well inside SQLite's parameter and expression-depth limits.
const READ_CHUNK = 500;
const WRITE_CHUNK = 100;

function isDatabase(db: Database | Kysely<object>): db is Database {
  return "kysely" in db && "dialect" in db;
}

/**
 * A pipeline's ledger table (its staging table): the latest content hash per
 * (source, entity, source_id), the raw key it was saved under, and the apply version that last
 * applied it. The table name is the pipeline's (`apl.staging`), created by `createLedgerTable`.
 * Writes belong in a fenced commit: `ledger.within(tx)`.
 */
export class Ledger {
  readonly #db: Kysely<LedgerDb>;
  readonly #table: "ledger";

  constructor(
    db: Database | Kysely<object>,
    readonly table: string,
    private readonly clock: Clock,
  ) {
    checkLedgerTableName(table);
    this.#db = isDatabase(db) ? typed<LedgerDb>(db) : (db as unknown as Kysely<LedgerDb>);
    this.#table = table as "ledger";
  }

  /** The same ledger working through `executor` (a caller's transaction). */
  within<DB>(executor: Transaction<DB> | Kysely<DB>): Ledger {
    return new Ledger(executor as unknown as Kysely<object>, this.table, this.clock);
  }

  /** The current row of one target. */
  async get(source: string, entity: string, sourceId: string): Promise<LedgerRow | undefined> {
    return this.#db
      .selectFrom(this.#table)
      .selectAll()
      .where("source", "=", source)
      .where("entity", "=", entity)
      .where("source_id", "=", sourceId)
      .executeTakeFirst();
  }

  /**
   * What a run compares for many targets, by source id (absent targets are missing): only
   * CurrentRow's columns, since a run reads this for every target and the others are most of
   * each row's bytes.
   */
  async getCurrent(
    source: string,
    entity: string,
    sourceIds: readonly string[],
  ): Promise<Map<string, CurrentRow>> {
    const out = new Map<string, CurrentRow>();
    for (const ids of chunks(sourceIds, READ_CHUNK)) {
      const rows = await this.#db
        .selectFrom(this.#table)
        .select(["source_id", "content_hash", "s3_key", "applied_version"])
        .where("source", "=", source)
        .where("entity", "=", entity)
        .where("source_id", "in", ids)
        .execute();
      for (const row of rows) out.set(row.source_id, row);
    }
    return out;
  }

  /** True when the target's current content hash is `contentHash` (no difference). */
  async existsHash(
    source: string,
    entity: string,
    sourceId: string,
    contentHash: string,
  ): Promise<boolean> {
    const row = await this.#db
      .selectFrom(this.#table)
      .select("source_id")
      .where("source", "=", source)
      .where("entity", "=", entity)
      .where("source_id", "=", sourceId)
      .where("content_hash", "=", contentHash)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Points each target at its new raw document, resetting `applied_*` to null (new content is
   * not applied yet); returns the number of rows written. Only for saved documents.
   */
  async batchUpsert(
    source: string,
    entity: string,
    rows: readonly LedgerUpsert[],
  ): Promise<number> {
    const now = isoTimestamp(this.clock.now());
    let written = 0;
    for (const part of chunks(rows, WRITE_CHUNK)) {
      const res = await this.#db
        .insertInto(this.#table)
        .values(
          part.map((r) => ({
            source,
            entity,
            source_id: r.sourceId,
            content_hash: r.contentHash,
            s3_key: r.s3Key,
            etag: r.etag,
            saved_at: r.savedAt,
            created_at: now,
            updated_at: now,
            applied_at: null,
            applied_version: null,
          })),
        )
        .onConflict((oc) =>
          oc.columns(["source", "entity", "source_id"]).doUpdateSet((eb) => ({
            content_hash: eb.ref("excluded.content_hash"),
            s3_key: eb.ref("excluded.s3_key"),
            etag: eb.ref("excluded.etag"),
            saved_at: eb.ref("excluded.saved_at"),
            updated_at: now,
            applied_at: null,
            applied_version: null,
          })),
        )
        .executeTakeFirst();
      written += Number(res.numInsertedOrUpdatedRows ?? part.length);
    }
    return written;
  }

  /**
   * Records that `version` applied these targets now; a row whose content changed meanwhile
   * (another hash) is left alone. Returns the number of rows marked.
   */
  async markApplied(
    source: string,
    entity: string,
    targets: readonly AppliedTarget[],
    version: number,
  ): Promise<number> {
    const now = isoTimestamp(this.clock.now());
    let marked = 0;
    for (const part of chunks(targets, READ_CHUNK)) {
      // `source_id in (…)` lets both databases walk the primary key; the pairs then check hashes.
      const res = await this.#db
        .updateTable(this.#table)
        .set({ applied_at: now, applied_version: version })
        .where("source", "=", source)
        .where("entity", "=", entity)
        .where(
          "source_id",
          "in",
          part.map((t) => t.sourceId),
        )
        .where((eb) =>
          eb(
            eb.refTuple("source_id", "content_hash"),
            "in",
            part.map((t) => eb.tuple(t.sourceId, t.contentHash)),
          ),
        )
        .executeTakeFirst();
      marked += Number(res.numUpdatedRows);
    }
    return marked;
  }

  /**
   * Rows whose content was not applied by `version` (never applied, or by another version): what
   * a re-apply reads of them. In saved_at order (then source id), the order they were written in,
   * so a page's rows sit together in the table and its applied marks touch few pages.
   */
  async pendingReapply(
    source: string,
    entity: string,
    version: number,
    page: { after?: PendingCursor; limit: number },
  ): Promise<PendingRow[]> {
    let q = this.#db
      .selectFrom(this.#table)
      .select(["source_id", "content_hash", "s3_key", "saved_at"])
      .where("source", "=", source)
      .where("entity", "=", entity)
      .where((eb) =>
        eb.or([eb("applied_version", "is", null), eb("applied_version", "!=", version)]),
      );
    const after = page.after;
    if (after !== undefined) {
      // The plain bound lets the (source, entity, saved_at) index start the walk there.
      q = q
        .where("saved_at", ">=", after.savedAt)
        .where((eb) =>
          eb.or([eb("saved_at", ">", after.savedAt), eb("source_id", ">", after.sourceId)]),
        );
    }
    return q.orderBy("saved_at").orderBy("source_id").limit(page.limit).execute();
  }

  /** How many rows `pendingReapply` would walk through. */
  async countPendingReapply(source: string, entity: string, version: number): Promise<number> {
    const row = await this.#db
      .selectFrom(this.#table)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("source", "=", source)
      .where("entity", "=", entity)
      .where((eb) =>
        eb.or([eb("applied_version", "is", null), eb("applied_version", "!=", version)]),
      )
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Rows whose raw document was saved at or after `since` (the "updated today" set), by source id. */
  async savedSince(
    source: string,
    entity: string,
    since: Date | string,
    page: { after?: string; limit?: number } = {},
  ): Promise<LedgerRow[]> {
    const at = typeof since === "string" ? since : isoTimestamp(since);
    let q = this.#db
      .selectFrom(this.#table)
      .selectAll()
      .where("source", "=", source)
      .where("entity", "=", entity)
      .where("saved_at", ">=", at);
    if (page.after !== undefined) q = q.where("source_id", ">", page.after);
    q = q.orderBy("source_id");
    if (page.limit !== undefined) q = q.limit(page.limit);
    return q.execute();
  }

  /** Row count, rows saved since `since`, rows pending re-apply for `version`, last save. */
  async stats(
    source: string,
    entity: string,
    opts: { since: Date | string; applyVersion: number },
  ): Promise<LedgerStats> {
    const at = typeof opts.since === "string" ? opts.since : isoTimestamp(opts.since);
    const row = await this.#db
      .selectFrom(this.#table)
      .select((eb) => [
        eb.fn.countAll<number>().as("rows"),
        eb.fn.max("saved_at").as("last_saved_at"),
        eb.fn
          .sum<number>(eb.case().when("saved_at", ">=", at).then(1).else(0).end())
          .as("saved_since"),
        eb.fn
          .sum<number>(
            eb
              .case()
              .when(
                eb.or([
                  eb("applied_version", "is", null),
                  eb("applied_version", "!=", opts.applyVersion),
                ]),
              )
              .then(1)
              .else(0)
              .end(),
          )
          .as("pending"),
      ])
      .where("source", "=", source)
      .where("entity", "=", entity)
      .executeTakeFirst();
    return {
      rows: Number(row?.rows ?? 0),
      savedSince: Number(row?.saved_since ?? 0),
      pendingReapply: Number(row?.pending ?? 0),
      lastSavedAt: row?.last_saved_at ?? null,
    };
  }
}
