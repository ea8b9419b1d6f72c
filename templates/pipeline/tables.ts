import type { CursorTables, LedgerTable } from "tidemark/kit";

/** One record as the pipeline keeps it: the latest content the API gave for its id. */
export interface StarterKitRecordTable {
  id: string;
  title: string;
  status: string;
  /** When the API says the record last changed (ISO-8601 UTC). */
  updated_at: string;
  /** Content hash of the normalized record (the ledger's, for joining the two). */
  content_hash: string;
  /** The run that last wrote the row. */
  run_id: string;
}

/** The pipeline's tables, with the engine's cursors (`tm_cursors`). */
export interface StarterKitTables extends CursorTables {
  starter_kit_record: StarterKitRecordTable;
  /** Latest content hash per record: an unchanged record is skipped without a write. */
  starter_kit_ledger: LedgerTable;
}

/** The ledger's table name (created by the migration). */
export const LEDGER_TABLE = "starter_kit_ledger";
