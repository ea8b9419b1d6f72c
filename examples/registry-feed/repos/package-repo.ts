import type { Transaction } from "kysely";
import type { Database } from "tidemark";
import { typed } from "tidemark/kit";
import type { RegistryPackage } from "../client/schemas.ts";
import type { RegistryFeedTables, RegistryPackageTable } from "../tables.ts";

/** Writes one package's row inside the run's fenced commit. */
export async function upsertPackage(
  tx: Transaction<RegistryFeedTables>,
  pkg: RegistryPackage,
  contentHash: string,
  runId: string,
): Promise<void> {
  const row: RegistryPackageTable = {
    name: pkg.name,
    latest: pkg.latest,
    version_count: pkg.versions.length,
    license: pkg.license,
    modified_at: pkg.modified_at,
    content_hash: contentHash,
    run_id: runId,
  };
  const { name: _name, ...changes } = row;
  await tx
    .insertInto("registry_feed_package")
    .values(row)
    .onConflict((oc) => oc.column("name").doUpdateSet(changes))
    .execute();
}

/** Removes the rows of packages the registry no longer has; how many it removed. */
export async function deletePackages(
  tx: Transaction<RegistryFeedTables>,
  names: readonly string[],
): Promise<number> {
  if (names.length === 0) return 0;
  const res = await tx
    .deleteFrom("registry_feed_package")
    .where("name", "in", [...names])
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** The packages changed most recently, newest first. */
export async function recentPackages(db: Database, limit: number): Promise<RegistryPackageTable[]> {
  return typed<RegistryFeedTables>(db)
    .selectFrom("registry_feed_package")
    .selectAll()
    .orderBy("modified_at", "desc")
    .orderBy("name")
    .limit(limit)
    .execute();
}

/** How many packages are kept. */
export async function packageCount(db: Database): Promise<number> {
  const row = await typed<RegistryFeedTables>(db)
    .selectFrom("registry_feed_package")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
