import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { parse } from "csv-parse";
import { type CheckedRow, checkRecord, RecordError } from "./coerce.ts";
import {
  IGNORED_GHOST_COLUMNS,
  IMPORT_COLUMNS,
  type ImportTable,
  RECORD_TYPES,
  type RecordType,
} from "./columns.ts";

/** One checked record and where it came from. */
export interface SourcedRecord {
  line: number;
  table: ImportTable;
  row: CheckedRow;
}

/** A problem at a line of the file. */
export class LineError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** NDJSON: one `{"type": …, <Ghost columns>}` object per line; blank lines are skipped. */
export async function* readNdjson(file: string): AsyncGenerator<SourcedRecord> {
  const lines = createInterface({
    input: createReadStream(file),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new LineError(line, `not JSON (${err instanceof Error ? err.message : String(err)})`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new LineError(line, "expected a JSON object with a type");
    }
    const { type, ...rest } = value as Record<string, unknown>;
    const table =
      typeof type === "string" && Object.hasOwn(RECORD_TYPES, type)
        ? RECORD_TYPES[type as RecordType]
        : undefined;
    if (table === undefined || typeof type !== "string") {
      throw new LineError(
        line,
        `type: expected member, newsletter_subscription, email, email_batch or email_recipient, got ${JSON.stringify(type) ?? "nothing"}`,
      );
    }
    yield { line, table, row: check(line, type, table, rest, false) };
  }
}

/** CSV of one table: a header of Ghost column names, then one row per record. */
export async function* readCsv(file: string, table: ImportTable): AsyncGenerator<SourcedRecord> {
  const parser = createReadStream(file).pipe(
    parse({ bom: true, relax_column_count: false, skip_empty_lines: true, info: true }),
  );
  let header: string[] | undefined;
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { lines: number };
    }>) {
      if (header === undefined) {
        header = record.map((h) => h.trim());
        checkHeader(info.lines, table, header);
        continue;
      }
      const raw: Record<string, unknown> = {};
      header.forEach((name, i) => {
        raw[name] = record[i];
      });
      yield { line: info.lines, table, row: check(info.lines, table, table, raw, true) };
    }
  } catch (err) {
    if (err instanceof LineError) throw err;
    const e = err as { lines?: number; message?: string };
    throw new LineError(e.lines ?? 0, `not valid CSV (${e.message ?? String(err)})`);
  }
  if (header === undefined) throw new LineError(1, "empty file: expected a header of column names");
}

function checkHeader(line: number, table: ImportTable, header: string[]): void {
  const known = IMPORT_COLUMNS[table].map((c) => c.name);
  const seen = new Set<string>();
  for (const name of header) {
    if (!known.includes(name) && !IGNORED_GHOST_COLUMNS[table].includes(name)) {
      throw new LineError(
        line,
        `header: ${name} is not a column of ${table} (known: ${known.join(", ")})`,
      );
    }
    if (seen.has(name)) throw new LineError(line, `header: ${name} appears twice`);
    seen.add(name);
  }
  for (const c of IMPORT_COLUMNS[table]) {
    if (c.required && !seen.has(c.name)) throw new LineError(line, `header: ${c.name} is required`);
  }
}

function check(
  line: number,
  label: string,
  table: ImportTable,
  raw: Record<string, unknown>,
  csv: boolean,
): CheckedRow {
  try {
    return checkRecord(table, raw, csv);
  } catch (err) {
    if (err instanceof RecordError) throw new LineError(line, `${label}.${err.message}`);
    throw err;
  }
}
