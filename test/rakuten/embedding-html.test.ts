// Captions and catch copies as real shops write them (tags, entities): stored and hashed as
// sent, embedded from plain text.

import { contentHash, RawStore, sha256Hex } from "tidemark/kit";
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openRakutenHarness } from "./support/rakuten-harness.ts";

describeEachDialect("rakuten embedding text from HTML captions", (h) => {
  it("keeps the text as sent in the raw store, the hash and apl.item; the embedding text is plain", async () => {
    const t = await openRakutenHarness(h, { size: 20 });
    const codes = t.catalogue.itemCodes(3);
    const r = await t.run("rakuten.item", { item_codes: codes });
    expect(r.summary).toMatchObject({ changed: 3, failure_count: 0 });
    const code = codes[0]!;
    const sent = t.catalogue.item(code)!;
    expect(sent.itemCaption).toMatch(/<br>.*&lt;.*&nbsp;/);

    const row = await t.db
      .selectFrom("apl.item")
      .selectAll()
      .where("rakuten_item_code", "=", code)
      .executeTakeFirstOrThrow();
    expect(row.item_caption).toBe(sent.itemCaption);
    const raw = new RawStore(t.rt.blobs, t.rt.config.env);
    const [version] = await raw.versions({ source: "rakuten", entity: "item", sourceId: code });
    const doc = JSON.parse(await raw.getText(version!.key)) as Record<string, unknown>;
    expect(doc.itemCaption).toBe(sent.itemCaption);
    expect(doc.catchcopy).toBe(sent.catchcopy === "" ? null : sent.catchcopy);
    const staged = (await t.staging("item")).find((s) => s.source_id === code)!;
    expect(staged.content_hash).toBe(contentHash(doc));

    const src = await t.run("rakuten.embedding-source");
    expect(src.summary).toMatchObject({ items: 3, added: 3, apply_version: 2 });
    const texts = await t.db.selectFrom("apl.item_embedding_source").selectAll().execute();
    for (const s of texts) {
      expect(s.source_text).not.toMatch(/<br>|<b>|&nbsp;|&lt;|&gt;|&amp;|\u00A0/);
      expect(s.source_text).toContain("<ご注意> 包装・のし&メッセージカード 無料");
    }
  });

  it("rebuilds a text stored by the previous recipe even when it reads the same", async () => {
    const t = await openRakutenHarness(h, { size: 20 });
    const [code] = t.catalogue.itemCodes(1) as [string];
    t.catalogue.patchItem(code, { itemCaption: "綿100%", catchcopy: "贈り物に" });
    await t.run("rakuten.item", { item_codes: [code] });
    await t.run("rakuten.embedding-source");
    const [stored] = await t.db.selectFrom("apl.item_embedding_source").selectAll().execute();
    // What the previous recipe (version 1) wrote for the same text.
    const v1 = sha256Hex(`v1\n${stored!.source_text}`);
    await t.db.updateTable("apl.item_embedding_source").set({ source_hash: v1 }).execute();
    const again = await t.run("rakuten.embedding-source");
    expect(again.summary).toMatchObject({ changed: 1, written: 1 });
    const [rebuilt] = await t.db.selectFrom("apl.item_embedding_source").selectAll().execute();
    expect(rebuilt!.source_hash).toBe(stored!.source_hash);
  });
});
