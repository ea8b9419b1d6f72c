import {
  type ColumnKind,
  IGNORED_GHOST_COLUMNS,
  IMPORT_COLUMNS,
  type ImportTable,
} from "./columns.ts";

/** A problem with one record, reported with its line by the caller. */
export class RecordError extends Error {}

/** One column value after checking: text, a number (ints, 0/1 booleans) or null. */
export type Cell = string | number | null;

/** A checked record: the given columns only (defaults come later, with the whole file known). */
export type CheckedRow = Record<string, Cell>;

const ID = /^[A-Za-z0-9_-]{1,24}$/;
const TIME = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d(?::\d\d(?:\.\d{1,9})?)?)(Z|[+-]\d\d:?\d\d)?$/i;

/** ISO-8601 (any offset; none = UTC, as Ghost's MySQL `YYYY-MM-DD HH:MM:SS`) → ISO UTC. */
export function parseTimestamp(raw: string): string | undefined {
  const m = TIME.exec(raw.trim());
  if (!m) return undefined;
  const zone = m[3] === undefined || m[3].toUpperCase() === "Z" ? "Z" : m[3];
  const fraction = (m[2] as string).replace(/(\.\d{3})\d+$/, "$1");
  const ms = Date.parse(`${m[1]}T${fraction}${zone.replace(/^([+-]\d\d)(\d\d)$/, "$1:$2")}`);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** True for CSV cells that mean NULL: empty, `\N` (MySQL dumps) and `NULL`. */
function isCsvNull(v: string): boolean {
  return v === "" || v === "\\N" || v === "NULL";
}

function describe(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** Checks one value against its column kind; `csv` values arrive as strings. */
function coerce(kind: ColumnKind, v: unknown, csv: boolean): Cell {
  switch (kind.t) {
    case "id":
      if (typeof v === "string" && ID.test(v)) return v;
      throw new RecordError(`expected an id of 1-24 letters, digits, - or _, got ${describe(v)}`);
    case "string": {
      if (typeof v !== "string") throw new RecordError(`expected text, got ${describe(v)}`);
      if (v.length > kind.max) throw new RecordError(`longer than ${kind.max} characters`);
      return v;
    }
    case "int": {
      const n =
        typeof v === "number"
          ? v
          : csv && /^-?\d+$/.test(String(v).trim())
            ? Number(v)
            : Number.NaN;
      if (!Number.isInteger(n)) throw new RecordError(`expected an integer, got ${describe(v)}`);
      if (n < kind.min || (kind.max !== undefined && n > kind.max)) {
        throw new RecordError(`expected ${kind.min}-${kind.max ?? "…"}, got ${n}`);
      }
      return n;
    }
    case "bool": {
      if (v === true || v === 1) return 1;
      if (v === false || v === 0) return 0;
      if (typeof v === "string" && /^(1|true|yes)$/i.test(v.trim())) return 1;
      if (typeof v === "string" && /^(0|false|no)$/i.test(v.trim())) return 0;
      throw new RecordError(`expected true or false, got ${describe(v)}`);
    }
    case "time": {
      const iso = typeof v === "string" ? parseTimestamp(v) : undefined;
      if (iso === undefined) {
        throw new RecordError(`expected an ISO-8601 timestamp, got ${describe(v)}`);
      }
      return iso;
    }
    case "enum":
      if (typeof v === "string" && kind.values.includes(v)) return v;
      throw new RecordError(`expected one of ${kind.values.join(", ")}, got ${describe(v)}`);
  }
}

/**
 * Checks one record of `table` (an NDJSON object without its `type`, or a CSV row): known
 * columns only (Ghost columns Tidemark does not keep are dropped), required ones present,
 * every value of its column's type. Throws RecordError naming the column.
 */
export function checkRecord(
  table: ImportTable,
  record: Record<string, unknown>,
  csv: boolean,
): CheckedRow {
  const columns = IMPORT_COLUMNS[table];
  const ignored = IGNORED_GHOST_COLUMNS[table];
  const out: CheckedRow = {};
  for (const key of Object.keys(record)) {
    if (!columns.some((c) => c.name === key) && !ignored.includes(key)) {
      throw new RecordError(
        `${key}: not a column of ${table} (known: ${columns.map((c) => c.name).join(", ")})`,
      );
    }
  }
  for (const column of columns) {
    let v = record[column.name];
    if (csv && typeof v === "string" && isCsvNull(v)) v = null;
    if (v === undefined || v === null) {
      if (column.required) throw new RecordError(`${column.name}: required`);
      if (v === null && column.nullable) out[column.name] = null;
      continue;
    }
    try {
      let cell = coerce(column.kind, v, csv);
      if (column.name === "provider_id" && typeof cell === "string") {
        cell = cell.replace(/^<(.*)>$/, "$1");
      }
      if ((column.name === "email" || column.name === "member_email") && typeof cell === "string") {
        cell = cell.trim();
        if (!/^[^@\s]+@[^@\s]+$/.test(cell))
          throw new RecordError(`not an email address: ${describe(v)}`);
      }
      out[column.name] = cell;
    } catch (err) {
      if (err instanceof RecordError) throw new RecordError(`${column.name}: ${err.message}`);
      throw err;
    }
  }
  return out;
}
