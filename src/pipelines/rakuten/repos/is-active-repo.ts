import { type Kysely, sql, type Transaction } from "kysely";
import { dialectOf } from "../../../engine/index.ts";
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

/** The seed's is_active update: only rows whose value changes are written (updated_at too). */
export async function updateIsActive(db: Db, now: string): Promise<number> {
  const t = names(db);
  const res = await sql`
    with computed as (
      select i.id,
        case when (
          exists (select 1 from ${t.genre} g where g.rakuten_genre_id = i.rakuten_genre_id)
          and exists (select 1 from ${t.shop} s where s.rakuten_shop_code = i.rakuten_shop_code)
        ) then 1 else 0 end as next_is_active
      from ${t.item} i
    )
    update ${t.item}
    set is_active = c.next_is_active, updated_at = ${now}
    from computed c
    where ${t.item}.id = c.id
      and ${t.item}.is_active is distinct from c.next_is_active`.execute(db);
  return Number(res.numAffectedRows ?? 0);
}

/** How many items would be activated and deactivated (the dry run's answer); writes nothing. */
export async function countIsActiveChanges(
  db: Db,
): Promise<{ activate: number; deactivate: number }> {
  const t = names(db);
  const res = await sql<{ next_is_active: number; is_active: number; n: number }>`
    with computed as (
      select i.id, i.is_active,
        case when (
          exists (select 1 from ${t.genre} g where g.rakuten_genre_id = i.rakuten_genre_id)
          and exists (select 1 from ${t.shop} s where s.rakuten_shop_code = i.rakuten_shop_code)
        ) then 1 else 0 end as next_is_active
      from ${t.item} i
    )
    select next_is_active, is_active, count(*) as n from computed
    where is_active is distinct from next_is_active
    group by next_is_active, is_active`.execute(db);
  let activate = 0;
  let deactivate = 0;
  for (const r of res.rows) {
    if (Number(r.next_is_active) === 1) activate += Number(r.n);
    else deactivate += Number(r.n);
  }
  return { activate, deactivate };
}
