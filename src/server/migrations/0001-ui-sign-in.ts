import type { Kysely } from "kysely";
import { columnTypes, dialectOf } from "../../infra/db/dialect.ts";

/**
 * The dashboard's sign-in state that every `serve` process on the database must share: sessions
 * signed out before their expiry (a copied cookie must stop working everywhere, not only in the
 * browser that signed out) and the count of recent failed sign-ins per client (the throttle).
 *
 * Databases migrated before the server had its own scope already hold these tables (the
 * engine's migration 0013 created them, and stays recorded there as applied): every statement
 * is "if not exists", so this migration leaves them and their rows as they are.
 */
export async function up(db: Kysely<object>): Promise<void> {
  const t = columnTypes(dialectOf(db));
  await db.schema
    .createTable("tm_ui_revoked_sessions")
    .ifNotExists()
    .addColumn("nonce", "text", (c) => c.primaryKey())
    // The session's own expiry: after it the cookie is refused anyway and the row can go.
    .addColumn("expires_at", t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("tm_ui_revoked_sessions_expires")
    .ifNotExists()
    .on("tm_ui_revoked_sessions")
    .column("expires_at")
    .execute();
  await db.schema
    .createTable("tm_ui_sign_in_failures")
    .ifNotExists()
    // One row per client: a counter updated in one statement, so concurrent attempts from one
    // client cannot all pass the limit before any of them is counted.
    .addColumn("client", "text", (c) => c.primaryKey())
    .addColumn("window_start", t.timestamp, (c) => c.notNull())
    .addColumn("failures", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("tm_ui_sign_in_failures_window")
    .ifNotExists()
    .on("tm_ui_sign_in_failures")
    .column("window_start")
    .execute();
}

/** Drops what up() added. */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.dropTable("tm_ui_sign_in_failures").ifExists().execute();
  await db.schema.dropTable("tm_ui_revoked_sessions").ifExists().execute();
}
