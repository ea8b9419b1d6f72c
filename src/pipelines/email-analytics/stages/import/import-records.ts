import type { Kysely } from "kysely";
import type { EmailAnalyticsTables } from "../../tables.ts";
import type { CheckedRow } from "./coerce.ts";
import type { ImportTable } from "./columns.ts";

/** The typed database handle the importer uses. */
export type Db = Kysely<EmailAnalyticsTables>;
/** One record of the file and its line. */
export type Entry = { line: number; row: CheckedRow };
/** The file's records per table, by id. */
export type ByTable = Record<ImportTable, Map<string, Entry>>;
