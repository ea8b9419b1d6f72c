// The whole Rakuten chain against the API fake, on both dialects and both raw stores.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RawStore } from "../../src/engine/entity-etl/raw-store.ts";
import { contentHash } from "../../src/engine/hashing/content-hash.ts";
import { executeRun } from "../../src/engine/runs/job-runner.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { startS3rver } from "../../src/testing/s3rver.ts";
import { type BlobDriver, openRakutenHarness } from "./support/rakuten-harness.ts";

let s3: Awaited<ReturnType<typeof startS3rver>> | undefined;
beforeAll(async () => {
  s3 = await startS3rver("tidemark-rakuten-test");
});
afterAll(async () => {
  await s3?.close();
});

describeEachDialect("rakuten jobs: the chain", (h) => {
  for (const driver of ["fs", "s3"] as BlobDriver[]) {
    describe(`raw store on ${driver}`, () => {
      it("ranking → item → genre → tag → is-active, then a rerun skips, counts the one real change, ignores an image reorder", async () => {
        const t = await openRakutenHarness(h, { driver, s3: () => s3! });
        const ranking = await t.run("rakuten.ranking", { genre_ids: [0, 100227] });
        expect(ranking.status, ranking.error ?? "").toBe("succeeded");
        expect(ranking.summary).toMatchObject({ total_targets: 2, changed: 2, blob_puts: 2 });
        const ranks = await t.db.selectFrom("apl.rank_snapshot").selectAll().execute();
        expect(ranks.length).toBeGreaterThan(0);

        const item = await t.run("rakuten.item", {});
        expect(item.status, item.error ?? "").toBe("succeeded");
        const codes = new Set(ranks.map((r) => r.rakuten_item_code));
        expect(item.summary).toMatchObject({
          total_targets: codes.size,
          changed: codes.size,
          failure_count: 0,
          blob_puts: codes.size,
          ledger_upserts: codes.size,
        });
        const items = await t.db.selectFrom("apl.item").selectAll().execute();
        expect(items).toHaveLength(codes.size);
        expect(await t.staging("item")).toHaveLength(codes.size);

        const genre = await t.run("rakuten.genre", {});
        expect(genre.status, genre.error ?? "").toBe("succeeded");
        const genreIds = new Set(items.map((i) => i.rakuten_genre_id));
        expect(genre.summary).toMatchObject({
          total_targets: genreIds.size,
          changed: genreIds.size,
        });
        const leaf = await t.db
          .selectFrom("apl.genre")
          .selectAll()
          .where("genre_level", "=", 2)
          .executeTakeFirstOrThrow();
        expect(leaf.genre_name).toBeTruthy();
        expect(leaf.parent_genre_id).toBeGreaterThan(0);
        const tag = await t.run("rakuten.tag", {});
        expect(tag.status, tag.error ?? "").toBe("succeeded");
        const tagIds = await t.db
          .selectFrom("apl.item_tag")
          .select("rakuten_tag_id")
          .distinct()
          .execute();
        expect(tag.summary).toMatchObject({ total_targets: tagIds.length, failure_count: 0 });
        expect(await t.db.selectFrom("apl.tag").selectAll().execute()).toHaveLength(tagIds.length);
        expect(
          (await t.db.selectFrom("apl.tag_group").selectAll().execute()).length,
        ).toBeGreaterThan(0);

        const active = await t.run("rakuten.is-active");
        expect(active.summary).toMatchObject({ updated: codes.size, activated: codes.size });

        // The raw store holds each document under scheme A; its SHA-256 is the key's hash.
        const [first] = await t.staging("item");
        expect(first!.s3_key).toBe(
          `raw/source=rakuten/entity=item/source_id=${first!.source_id}/hash=${first!.content_hash}.json`,
        );
        const raw = new RawStore(t.rt.blobs, "dev");
        const text = await raw.getText(first!.s3_key);
        expect(contentHash(JSON.parse(text))).toBe(first!.content_hash);

        // Rankings unchanged: no put, no new rank snapshot.
        const rankAgain = await t.run("rakuten.ranking", { genre_ids: [0, 100227] });
        expect(rankAgain.summary).toMatchObject({ unchanged_skipped: 2, changed: 0, blob_puts: 0 });
        expect(await t.db.selectFrom("apl.rank_snapshot").selectAll().execute()).toHaveLength(
          ranks.length,
        );

        // Second day: nothing changed upstream except one price and one image order.
        const [priced, reordered] = [...codes];
        t.catalogue.setPrice(priced!, 12_345);
        t.catalogue.reorderImages(reordered!);
        await t.savedYesterday();
        t.clock.advance(60_000);
        t.blobs.rawPuts.length = 0;
        const itemsBefore = await t.db.selectFrom("apl.item").selectAll().orderBy("id").execute();
        const again = await t.run("rakuten.item", {});
        expect(again.summary).toMatchObject({
          total_targets: codes.size,
          unchanged_skipped: codes.size - 1,
          changed: 1,
          reapplied: 0,
          blob_puts: 1,
          ledger_upserts: 1,
        });
        expect(t.blobs.rawPuts).toHaveLength(1);
        const itemsAfter = await t.db.selectFrom("apl.item").selectAll().orderBy("id").execute();
        const moved = itemsAfter.filter((a, i) => a.updated_at !== itemsBefore[i]!.updated_at);
        expect(moved.map((m) => [m.rakuten_item_code, m.item_price])).toEqual([[priced, 12_345]]);
        const market = await t.db
          .selectFrom("apl.market_snapshot as m")
          .innerJoin("apl.item as i", "i.id", "m.item_id")
          .select(["i.rakuten_item_code", "m.item_price"])
          .where("i.rakuten_item_code", "=", priced!)
          .orderBy("m.id")
          .execute();
        expect(market.map((m) => m.item_price).at(-1)).toBe(12_345);
        expect(market).toHaveLength(2);

        // Only items saved today drive genre and tag targets.
        const genre2 = await t.run("rakuten.genre", {});
        expect(genre2.summary).toMatchObject({ total_targets: 1 });
      });

      it("formatVersion 1 and the old host give the same documents: a switch changes nothing", async () => {
        const t = await openRakutenHarness(h, { driver, s3: () => s3! });
        const codes = t.catalogue.itemCodes(6);
        const first = await t.run("rakuten.item", { item_codes: codes });
        expect(first.summary).toMatchObject({ changed: 6 });
        const base = t.rt.config.pipelines.rakuten as Record<string, unknown>;
        for (const variant of [
          { format_version: 1 },
          { base_url: `${t.server.url}/services/api` },
          { base_url: `${t.server.url}/services/api`, format_version: 1 },
        ]) {
          const rt = {
            ...t.rt,
            config: { ...t.rt.config, pipelines: { rakuten: { ...base, ...variant } } },
          };
          const again = await executeRun(rt, {
            jobName: "rakuten-item",
            jobType: "rakuten.item",
            params: { item_codes: codes },
          });
          expect(again.summary, JSON.stringify(variant)).toMatchObject({
            unchanged_skipped: 6,
            changed: 0,
            failure_count: 0,
          });
        }
      });

      it("an item that left Rakuten is not_found, not a failure; a listed item code is fetched too", async () => {
        const t = await openRakutenHarness(h, { driver, s3: () => s3! });
        const [a, b] = t.catalogue.itemCodes(2);
        t.catalogue.removeItem(b!);
        const r = await t.run("rakuten.item", { item_codes: [a!, b!] });
        expect(r.status).toBe("succeeded");
        expect(r.summary).toMatchObject({
          total_targets: 2,
          changed: 1,
          not_found: 1,
          failure_count: 0,
        });
        expect((await t.staging("item")).map((s) => s.source_id)).toEqual([a]);
      });
    });
  }
});
