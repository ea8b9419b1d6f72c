import type { Kysely } from "kysely";
import type { Clock } from "tidemark";
import { isoTimestamp } from "tidemark/kit";
import type { BooksTables, CollectCursorRow } from "../tables.ts";

/** A cursor as the code sees it: `is_exhausted` is a boolean here. */
export interface CollectCursor {
  job_name: string;
  query_set_hash: string;
  start_index: number;
  is_exhausted: boolean;
  last_updated_at: string;
}

function toCursor(row: CollectCursorRow): CollectCursor {
  return { ...row, is_exhausted: row.is_exhausted === 1 };
}

/**
 * The cursor DAO over `collect_cursor`. `last_updated_at` comes from the injected clock
 * and is written by the UPSERT itself on both the insert and the update path, so no caller can
 * forget it (the column's DEFAULT only covers rows written by hand).
 */
export class CollectCursorRepo {
  constructor(
    private readonly db: Kysely<BooksTables>,
    private readonly clock: Clock,
  ) {}

  /** The cursor of one (job, query set), or undefined when there is none yet. */
  async getCollectCursor(
    jobName: string,
    querySetHash: string,
  ): Promise<CollectCursor | undefined> {
    const row = await this.db
      .selectFrom("collect_cursor")
      .selectAll()
      .where("job_name", "=", jobName)
      .where("query_set_hash", "=", querySetHash)
      .executeTakeFirst();
    return row && toCursor(row);
  }

  /** Inserts or updates the cursor; `last_updated_at` is refreshed either way. */
  async upsertCollectCursor(
    jobName: string,
    querySetHash: string,
    startIndex: number,
    isExhausted: boolean,
  ): Promise<void> {
    const now = isoTimestamp(this.clock.now());
    await this.db
      .insertInto("collect_cursor")
      .values({
        job_name: jobName,
        query_set_hash: querySetHash,
        start_index: startIndex,
        is_exhausted: isExhausted ? 1 : 0,
        last_updated_at: now,
      })
      .onConflict((oc) =>
        oc.columns(["job_name", "query_set_hash"]).doUpdateSet((eb) => ({
          start_index: eb.ref("excluded.start_index"),
          is_exhausted: eb.ref("excluded.is_exhausted"),
          last_updated_at: eb.ref("excluded.last_updated_at"),
        })),
      )
      .execute();
  }

  /** Deletes every cursor of the job (all query sets); returns how many rows went. */
  async resetCollectCursorsByJob(jobName: string): Promise<number> {
    const res = await this.db
      .deleteFrom("collect_cursor")
      .where("job_name", "=", jobName)
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /** Every cursor (of one job when given), for debugging and the demo; not a CLI command. */
  async listCollectCursors(jobName?: string): Promise<CollectCursor[]> {
    let q = this.db.selectFrom("collect_cursor").selectAll();
    if (jobName !== undefined) q = q.where("job_name", "=", jobName);
    const rows = await q.orderBy("job_name").orderBy("last_updated_at").execute();
    return rows.map(toCursor);
  }
}
