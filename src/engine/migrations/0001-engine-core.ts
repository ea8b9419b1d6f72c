import type { Kysely } from "kysely";
import { columnTypes, dialectOf } from "../../infra/db/dialect.ts";

/** Jobs, runs and leases. */
export async function up(db: Kysely<object>): Promise<void> {
  const t = columnTypes(dialectOf(db));
  await db.schema
    .createTable("tm_jobs")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("params", t.json, (c) => c.notNull())
    .addColumn("schedule", "text")
    .addColumn("timezone", "text", (c) => c.notNull().defaultTo("UTC"))
    .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("created_at", t.timestamp, (c) => c.notNull())
    .addColumn("updated_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("tm_runs")
    .addColumn("run_id", "text", (c) => c.primaryKey())
    .addColumn("job_name", "text", (c) => c.notNull())
    .addColumn("job_type", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("started_at", t.timestamp, (c) => c.notNull())
    .addColumn("finished_at", t.timestamp)
    .addColumn("summary", t.json)
    .addColumn("error", "text")
    .addColumn("dry_run", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("lease_key", "text", (c) => c.notNull())
    .addColumn("host", "text", (c) => c.notNull())
    .addColumn("pid", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("tm_runs_job_started")
    .on("tm_runs")
    .columns(["job_name", "started_at"])
    .execute();
  await db.schema.createIndex("tm_runs_status").on("tm_runs").column("status").execute();
  await db.schema
    .createTable("tm_leases")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("holder", "text", (c) => c.notNull())
    .addColumn("acquired_at", t.timestamp, (c) => c.notNull())
    .addColumn("heartbeat_at", t.timestamp, (c) => c.notNull())
    .addColumn("expires_at", t.timestamp, (c) => c.notNull())
    .execute();
}

/** Drops the engine tables. */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.dropTable("tm_leases").execute();
  await db.schema.dropTable("tm_runs").execute();
  await db.schema.dropTable("tm_jobs").execute();
}
