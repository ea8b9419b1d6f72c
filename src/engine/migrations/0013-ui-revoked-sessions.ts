import type { Kysely } from "kysely";

/**
 * Once created the dashboard's sign-in tables; they now belong to the server's own migration
 * scope (`src/server/migrations`). Kept, doing nothing, so that databases which ran it still
 * list exactly the engine's known migrations; the server's first migration creates the tables
 * where they are missing and leaves them where this one made them.
 */
export async function up(_db: Kysely<object>): Promise<void> {}

/** Nothing to undo: the tables are the server scope's. */
export async function down(_db: Kysely<object>): Promise<void> {}
