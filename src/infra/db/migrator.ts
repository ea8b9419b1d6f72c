import { type Kysely, type Migration, type MigrationResultSet, Migrator, sql } from "kysely";
import type { Database } from "./open-database.ts";

/** A named, ordered set of migrations: the engine's, or one pipeline's. */
export interface MigrationScope {
  /** `engine` or the pipeline name; each scope keeps its own history table. */
  name: string;
  /** Loaded lazily so that commands that never touch the database stay fast. */
  migrations: () => Promise<Record<string, Migration>>;
}

/** One migration and whether it has run. */
export interface MigrationState {
  scope: string;
  name: string;
  executedAt: string | undefined;
}

function tableName(scope: string): string {
  return `tm_migrations_${scope.replace(/[^a-z0-9]/gi, "_")}`;
}

function migratorFor(db: Database, scope: MigrationScope): Migrator {
  return new Migrator({
    db: db.kysely as Kysely<unknown>,
    provider: { getMigrations: scope.migrations },
    migrationTableName: tableName(scope.name),
    migrationLockTableName: `${tableName(scope.name)}_lock`,
  });
}

function check(scope: string, result: MigrationResultSet): string[] {
  if (result.error) {
    const failed = result.results?.find((r) => r.status === "Error");
    const where = failed ? ` in ${scope}/${failed.migrationName}` : ` in ${scope}`;
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`migration failed${where}: ${reason}`, { cause: result.error });
  }
  return (result.results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}

/**
 * True when the scope's history table lists exactly its known migrations: one query, where
 * Kysely's Migrator introspects the schema and takes its lock first (~30 ms of every CLI run).
 * Anything else (no table yet, pending or unknown migrations) goes through the Migrator.
 */
async function upToDate(db: Database, scope: MigrationScope): Promise<boolean> {
  const known = Object.keys(await scope.migrations());
  try {
    const { rows } = await sql<{ name: string }>`select name from ${sql.table(
      tableName(scope.name),
    )}`.execute(db.kysely as Kysely<unknown>);
    const done = new Set(rows.map((r) => r.name));
    return done.size === known.length && known.every((name) => done.has(name));
  } catch {
    return false;
  }
}

/** Applies every pending migration, scope by scope; returns what was applied. */
export async function migrateToLatest(
  db: Database,
  scopes: readonly MigrationScope[],
): Promise<Array<{ scope: string; applied: string[] }>> {
  const out: Array<{ scope: string; applied: string[] }> = [];
  for (const scope of scopes) {
    if (await upToDate(db, scope)) {
      out.push({ scope: scope.name, applied: [] });
      continue;
    }
    const applied = check(scope.name, await migratorFor(db, scope).migrateToLatest());
    out.push({ scope: scope.name, applied });
  }
  return out;
}

/** Lists every known migration of every scope with its execution time, if any. */
export async function migrationStatus(
  db: Database,
  scopes: readonly MigrationScope[],
): Promise<MigrationState[]> {
  const out: MigrationState[] = [];
  for (const scope of scopes) {
    for (const m of await migratorFor(db, scope).getMigrations()) {
      out.push({
        scope: scope.name,
        name: m.name,
        executedAt: m.executedAt ? new Date(m.executedAt).toISOString() : undefined,
      });
    }
  }
  return out;
}

/** Every known migration as pending, for a database that does not exist yet (nothing opened). */
export async function allPending(scopes: readonly MigrationScope[]): Promise<MigrationState[]> {
  const out: MigrationState[] = [];
  for (const scope of scopes) {
    // Sorted by name, the order Kysely's Migrator applies and lists them in.
    for (const name of Object.keys(await scope.migrations()).sort()) {
      out.push({ scope: scope.name, name, executedAt: undefined });
    }
  }
  return out;
}
