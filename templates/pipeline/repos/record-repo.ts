import type { Transaction } from "kysely";
import type { Database } from "tidemark";
import { typed } from "tidemark/kit";
import type { StarterKitRecord } from "../client/schemas.ts";
import type { StarterKitRecordTable, StarterKitTables } from "../tables.ts";

/** Writes one record's row inside the run's fenced commit (the ledger's transaction). */
export async function upsertRecord(
  tx: Transaction<StarterKitTables>,
  record: StarterKitRecord,
  contentHash: string,
  runId: string,
): Promise<void> {
  const row: StarterKitRecordTable = { ...record, content_hash: contentHash, run_id: runId };
  await tx
    .insertInto("starter_kit_record")
    .values(row)
    .onConflict((oc) =>
      oc.column("id").doUpdateSet({
        title: row.title,
        status: row.status,
        updated_at: row.updated_at,
        content_hash: row.content_hash,
        run_id: row.run_id,
      }),
    )
    .execute();
}

/** How many records there are, and by status. */
export async function recordCounts(db: Database): Promise<{ total: number; open: number }> {
  const rows = await typed<StarterKitTables>(db)
    .selectFrom("starter_kit_record")
    .select(["status", (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy("status")
    .execute();
  const total = rows.reduce((sum, r) => sum + Number(r.n), 0);
  const open = Number(rows.find((r) => r.status === "open")?.n ?? 0);
  return { total, open };
}

/** The most recently updated records, newest first. */
export async function latestRecords(db: Database, limit: number): Promise<StarterKitRecordTable[]> {
  return typed<StarterKitTables>(db)
    .selectFrom("starter_kit_record")
    .selectAll()
    .orderBy("updated_at", "desc")
    .orderBy("id")
    .limit(limit)
    .execute();
}
