import type { Kysely } from "kysely";

/**
 * Which process holds a lease (host, pid namespace, pid), so that a lease left by a process
 * that died on this machine can be taken over at once instead of after its TTL.
 */
export async function up(db: Kysely<object>): Promise<void> {
  await db.schema.alterTable("tm_leases").addColumn("owner", "text").execute();
}

/** Drops what up() added. */
export async function down(db: Kysely<object>): Promise<void> {
  await db.schema.alterTable("tm_leases").dropColumn("owner").execute();
}
