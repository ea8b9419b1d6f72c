import { type RawBuilder, sql, type Transaction } from "kysely";
import type { DialectName } from "tidemark/kit";
import { chunks } from "tidemark/kit";
import type { EmailAnalyticsTables } from "../tables.ts";

/** Rows per multi-row statement: well under both dialects' bound-parameter limits. */
export const ROWS_PER_STATEMENT = 500;

/**
 * The rows a lookup by many keys finds, asked ROWS_PER_STATEMENT keys at a time (`find` runs
 * one statement for one part of the keys).
 */
export async function findInParts<T>(
  keys: readonly string[],
  find: (part: string[]) => Promise<T[]>,
): Promise<T[]> {
  const out: T[] = [];
  for (const part of chunks([...keys], ROWS_PER_STATEMENT)) out.push(...(await find(part)));
  return out;
}

/** Kinds of value a batched update writes. */
export type ValueKind = "timestamp" | "integer";

/**
 * A VALUES column read in an UPDATE … FROM, typed as its target column needs: Postgres types
 * bound VALUES as text, which it refuses to assign to timestamptz or integer columns, so they
 * are cast there. SQLite stores timestamps as text and must not cast them (a NUMERIC cast would
 * keep only the year).
 */
export function valuesColumn(
  dialect: DialectName,
  kind: ValueKind,
  column: string,
): RawBuilder<unknown> {
  const ref = sql.ref(`v.${column}`);
  if (dialect === "postgres") {
    return kind === "timestamp" ? sql`cast(${ref} as timestamptz)` : sql`cast(${ref} as integer)`;
  }
  return ref;
}

/** `(values (?, ?, …), …) as v`: rows of bound values (columns column1, column2, … on both dialects). */
export function valuesTable(rows: ReadonlyArray<readonly unknown[]>): RawBuilder<unknown> {
  // One template with every value as a parameter: building a node per tuple and per value
  // costs more than the statement itself at 500 rows.
  const strings: string[] = ["(values "];
  const params: unknown[] = [];
  rows.forEach((row, i) => {
    row.forEach((value, j) => {
      strings[strings.length - 1] += j === 0 ? (i === 0 ? "(" : ", (") : ", ";
      params.push(value);
      strings.push("");
    });
    strings[strings.length - 1] += ")";
  });
  strings[strings.length - 1] += ") as v";
  const template = Object.assign([...strings], { raw: [...strings] }) as TemplateStringsArray;
  return sql(template, ...params);
}

/**
 * Sets `column` of the rows named in `values` (id → value): one `UPDATE … FROM (VALUES …)` per
 * chunk (both dialects join it on the primary key), only where the column is still NULL when
 * `onlyIfNull` (Ghost sets event timestamps once).
 */
export async function updateColumnById(
  tx: Transaction<EmailAnalyticsTables>,
  dialect: DialectName,
  table: "email_recipients" | "members",
  column: string,
  kind: ValueKind,
  values: ReadonlyMap<string, unknown>,
  onlyIfNull: boolean,
): Promise<void> {
  for (const part of chunks([...values], ROWS_PER_STATEMENT)) {
    const guard = onlyIfNull ? sql` and ${sql.ref(`${table}.${column}`)} is null` : sql``;
    await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${valuesColumn(dialect, kind, "column2")} from ${valuesTable(part)} where ${sql.ref(`${table}.id`)} = ${sql.ref("v.column1")}${guard}`.execute(
      tx,
    );
  }
}

/** A Ghost-style 24-hex object id: 4 bytes of seconds, then 8 random bytes. */
export function objectId(now = Date.now()): string {
  const seconds = Math.floor(now / 1000)
    .toString(16)
    .padStart(8, "0");
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return seconds + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
