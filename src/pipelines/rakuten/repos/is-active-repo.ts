import { type Kysely, sql, type Transaction } from "kysely";
import { dialectOf } from "tidemark/kit";
import type { RakutenTables } from "../tables.ts";

type Db = Kysely<RakutenTables> | Transaction<RakutenTables>;

/**
 * An item is active when its genre and its shop are both known (tags are not a condition).
 * `apl.item` / `apl_item`: raw SQL does not pass through the schema-flattening plugin.
 */
function names(db: Db) {
  const pg = dialectOf(db as unknown as Kysely<object>) === "postgres";
  const n = (t: string) => sql.raw(pg ? `apl.${t}` : `apl_${t}`);
  return { item: n("item"), genre: n("genre"), shop: n("shop") };
}

/** The items whose is_active changes (id, next value), the first `limit` by id when given. */
function changesCte(db: Db, limit: number | undefined) {
  const t = names(db);
  // One SQL statement computes the value (docs/pipelines/rakuten.md); the changed rows are picked first so --limit caps them.
  return sql`
    with computed as (
      select i.id, i.is_active,
        case when (
          exists (select 1 from ${t.genre} g where g.rakuten_genre_id = i.rakuten_genre_id)
          and exists (select 1 from ${t.shop} s where s.rakuten_shop_code = i.rakuten_shop_code)
        ) then 1 else 0 end as next_is_active
      from ${t.item} i
    ),
    changes as (
      select id, is_active, next_is_active from computed
      where is_active is distinct from next_is_active
      order by id
      ${limit === undefined ? sql`` : sql`limit ${limit}`}
    )`;
}

/** How many items were (or would be) activated and deactivated. */
export interface IsActiveChanges {
  activate: number;
  deactivate: number;
}

/**
 * The is_active update: only rows whose value changes are written (updated_at too), at
 * most `limit` of them (lowest ids first). Returns what it activated and deactivated.
 */
export async function updateIsActive(
  db: Db,
  now: string,
  limit?: number,
): Promise<IsActiveChanges> {
  const t = names(db);
  const res = await sql<{ is_active: number }>`
    ${changesCte(db, limit)}
    update ${t.item}
    set is_active = c.next_is_active, updated_at = ${now}
    from changes c
    where ${t.item}.id = c.id
    returning ${t.item}.is_active`.execute(db);
  return tally(res.rows.map((r) => ({ next_is_active: r.is_active, n: 1 })));
}

/** What `updateIsActive` would change (the dry run's answer); writes nothing. */
export async function countIsActiveChanges(db: Db, limit?: number): Promise<IsActiveChanges> {
  const res = await sql<{ next_is_active: number; n: number }>`
    ${changesCte(db, limit)}
    select next_is_active, count(*) as n from changes group by next_is_active`.execute(db);
  return tally(res.rows);
}

function tally(rows: ReadonlyArray<{ next_is_active: number; n: number }>): IsActiveChanges {
  let activate = 0;
  let deactivate = 0;
  for (const r of rows) {
    if (Number(r.next_is_active) === 1) activate += Number(r.n);
    else deactivate += Number(r.n);
  }
  return { activate, deactivate };
}
