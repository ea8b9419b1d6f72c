/**
 * Migrations named up front and loaded when they run. Every command that opens the database
 * checks each scope's history against its migrations' names (see upToDate in migrator.ts); with
 * the modules imported to get those names, that check loaded and compiled every migration of
 * every scope (~20 ms of each CLI start, the engine's fourteen alone ~7 ms) to run none of them.
 */
import type { Kysely, Migration } from "kysely";
import type { MigrationScope } from "./migrator.ts";

/** Loads one migration module: `() => import("./migrations/0001-x.ts")`. */
export type MigrationLoader = () => Promise<Migration>;

/** A migration whose module is loaded (once) the first time it is run either way. */
function lazyMigration(name: string, load: MigrationLoader): Migration {
  let loaded: Promise<Migration> | undefined;
  const module = () => {
    loaded ??= load();
    return loaded;
  };
  return {
    up: async (db: Kysely<unknown>) => (await module()).up(db),
    down: async (db: Kysely<unknown>) => {
      const migration = await module();
      if (!migration.down) throw new Error(`migration ${name} has no down(): it cannot be undone`);
      await migration.down(db);
    },
  };
}

/**
 * A scope's `migrations` from one loader per migration, by name:
 * `migrations: lazyMigrations({ "0001-x": () => import("./migrations/0001-x.ts") })`. Listing
 * them, or finding them all applied, loads none of their modules; a migration's module is
 * loaded when it runs (a module that fails to load fails that migration, named).
 */
export function lazyMigrations(
  loaders: Readonly<Record<string, MigrationLoader>>,
): MigrationScope["migrations"] {
  const migrations: Record<string, Migration> = {};
  for (const [name, load] of Object.entries(loaders)) migrations[name] = lazyMigration(name, load);
  return async () => migrations;
}
