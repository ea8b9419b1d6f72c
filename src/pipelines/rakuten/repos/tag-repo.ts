import type { Kysely, Transaction } from "kysely";
import type { NormalizedTag } from "../stages/normalize/types.ts";
import type { RakutenTables } from "../tables.ts";

type Db = Kysely<RakutenTables> | Transaction<RakutenTables>;

/** Tag groups and tags. */
export class TagRepo {
  constructor(
    private readonly db: Db,
    private readonly now: string,
  ) {}

  /** Inserts or renames the tag's group (untouched when its name is unchanged); returns its id. */
  async upsertTagGroup(doc: NormalizedTag): Promise<number> {
    await this.db
      .insertInto("apl.tag_group")
      .values({
        rakuten_tag_group_id: doc.tagGroupId,
        tag_group_name: doc.tagGroupName,
        created_at: this.now,
        updated_at: this.now,
      })
      .onConflict((oc) =>
        oc
          .column("rakuten_tag_group_id")
          .doUpdateSet({ tag_group_name: doc.tagGroupName, updated_at: this.now })
          .where((eb) =>
            eb(
              "apl.tag_group.tag_group_name",
              "is distinct from",
              eb.ref("excluded.tag_group_name"),
            ),
          ),
      )
      .execute();
    return doc.tagGroupId;
  }

  /** Inserts or updates the tag; returns its id. */
  async upsertTag(doc: NormalizedTag): Promise<number> {
    const values = {
      tag_name: doc.tagName,
      rakuten_tag_group_id: doc.tagGroupId,
      parent_tag_id: doc.parentTagId,
      updated_at: this.now,
    };
    await this.db
      .insertInto("apl.tag")
      .values({ rakuten_tag_id: doc.tagId, ...values, created_at: this.now })
      .onConflict((oc) => oc.column("rakuten_tag_id").doUpdateSet(values))
      .execute();
    return doc.tagId;
  }
}
