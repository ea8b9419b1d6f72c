import type { CursorTables, LedgerTable } from "tidemark/kit";

/** A package as last fetched: its latest version and how many versions it has. */
export interface RegistryPackageTable {
  name: string;
  latest: string;
  version_count: number;
  license: string | null;
  /** When the registry says the package last changed (ISO-8601 UTC). */
  modified_at: string;
  content_hash: string;
  run_id: string;
}

/** The pipeline's tables, with the engine's cursors. */
export interface RegistryFeedTables extends CursorTables {
  registry_feed_package: RegistryPackageTable;
  registry_feed_ledger: LedgerTable;
}

export const LEDGER_TABLE = "registry_feed_ledger";
