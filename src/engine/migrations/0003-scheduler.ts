import type { Kysely } from "kysely";
import { columnTypes, dialectOf } from "../../infra/db/dialect.ts";

/**
 * Scheduler and HTTP API state: per-job schedule jitter, the last occurrence fired per job
 * (so N embedded schedulers fire each occurrence once), and runs requested over HTTP (so a
 * queued run is visible under its run id before a worker starts it).
 */
export async function up(db: Kysely<object>): Promise<void> {
  const t = columnTypes(dialectOf(db));
  await db.schema
    .alterTable("tm_jobs")
    .addColumn("jitter_seconds", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable("tm_schedule_fires")
    .addColumn("job_name", "text", (c) => c.primaryKey())
    .addColumn("occurrence", t.timestamp, (c) => c.notNull())
    .addColumn("fired_at", t.timestamp, (c) => c.notNull())
    .addColumn("host", "text", (c) => c.notNull())
    .addColumn("pid", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("tm_run_requests")
    .addColumn("run_id", "text", (c) => c.primaryKey())
    .addColumn("job_name", "text", (c) => c.notNull())
    .addColumn("queue", "text", (c) => c.notNull())
    .addColumn("message_id", "text", (c) => c.notNull())
    .addColumn("requested_by", "text", (c) => c.notNull())
    .addColumn("requested_at", t.timestamp, (c) => c.notNull())
    .addColumn("dry_run", "integer", (c) => c.notNull())
    .addColumn("run_limit", "integer")
    .execute();
  await db.schema
    .createIndex("tm_run_requests_job")
    .on("tm_run_requests")
    .columns(["job_name", "requested_at"])
    .execute();
}

/** Drops what up() added. */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.dropTable("tm_run_requests").execute();
  await db.schema.dropTable("tm_schedule_fires").execute();
  await db.schema.alterTable("tm_jobs").dropColumn("jitter_seconds").execute();
}
