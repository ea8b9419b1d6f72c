/** Row type of `tm_cursors`: one durable position per key. */
export interface CursorsTable {
  key: string;
  /** The position as JSON text (jsonb on Postgres). */
  value: string;
  /** ISO-8601 UTC of the last write. */
  updated_at: string;
}

/** The tables CursorStore reads and writes. */
export interface CursorTables {
  tm_cursors: CursorsTable;
}
