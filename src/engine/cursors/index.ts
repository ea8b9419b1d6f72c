export {
  type CursorEntry,
  type CursorState,
  CursorStore,
} from "./cursor-store.ts";
export type { CursorsTable, CursorTables } from "./cursor-tables.ts";
