import { type Kysely, sql } from "kysely";

/** What a refusing trigger refuses: writes of `op` on an `apl` table, optionally only one row. */
export interface Refusal {
  name: string;
  /** The table without its schema: `staging`, `item`, … */
  table: string;
  op: "insert" | "update";
  message: string;
  /** Only rows whose `column` holds `value`. */
  only?: { column: string; value: string };
}

/**
 * Installs a trigger that makes the database refuse those writes (a database failing mid-run,
 * on either dialect); the returned function removes it.
 */
export async function refuseWrites(
  // biome-ignore lint/suspicious/noExplicitAny: raw SQL against a harness's database of any table type.
  db: Kysely<any>,
  dialect: "sqlite" | "postgres",
  r: Refusal,
): Promise<() => Promise<void>> {
  const name = sql.raw(r.name);
  const msg = sql.lit(r.message);
  const col = r.only && sql.ref(`new.${r.only.column}`);
  const val = r.only && sql.lit(r.only.value);
  const op = sql.raw(r.op);
  if (dialect === "postgres") {
    const table = sql.raw(`apl.${r.table}`);
    const body = col
      ? sql`if ${col} = ${val} then raise exception ${msg}; end if; return new;`
      : sql`raise exception ${msg};`;
    await sql`create function apl.${name}() returns trigger language plpgsql as $$ begin ${body} end $$`.execute(
      db,
    );
    await sql`create trigger ${name} before ${op} on ${table} for each row execute function apl.${name}()`.execute(
      db,
    );
    return async () => void (await sql`drop trigger ${name} on ${table}`.execute(db));
  }
  const table = sql.raw(`apl_${r.table}`);
  const when = col ? sql`when ${col} = ${val}` : sql``;
  await sql`create trigger ${name} before ${op} on ${table} ${when} begin select raise(abort, ${msg}); end`.execute(
    db,
  );
  return async () => void (await sql`drop trigger ${name}`.execute(db));
}
