import { lazyMigrations } from "../../infra/db/lazy-migrations.ts";
import type { MigrationScope } from "../../infra/db/migrator.ts";

/**
 * The server's own tables (the dashboard's sign-in state). Migrated right after the engine's
 * scope by `tidemark db migrate` and by every CLI command that opens the database.
 */
export const serverMigrations: MigrationScope = {
  name: "server",
  migrations: lazyMigrations({
    "0001-ui-sign-in": () => import("./0001-ui-sign-in.ts"),
  }),
};
