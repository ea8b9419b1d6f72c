import type { DemoContext, DemoRunResult } from "tidemark";
import { typed } from "tidemark/kit";
import { FAKE_ACCESS_KEY, FAKE_APPLICATION_ID, startRakutenFake } from "./fake/start-fake.ts";
import { StoredItemRepo } from "./repos/stored-item-repo.ts";
import type { RakutenTables } from "./tables.ts";

/** The rankings the demo follows: all genres and 食品 (food). */
const GENRES = [0, 100227];

function n(s: Record<string, unknown>, key: string): string {
  return String(s[key] ?? 0);
}

function etlLine(label: string, r: DemoRunResult): string {
  const s = r.summary;
  return (
    `  ${label.padEnd(19)} ${r.status.padEnd(9)} targets ${n(s, "total_targets")}, changed ${n(s, "changed")}, ` +
    `unchanged skipped ${n(s, "unchanged_skipped")}, not found ${n(s, "not_found")}, failed ${n(s, "failure_count")}, ` +
    `raw puts ${n(s, "blob_puts")}${r.error ? ` — ${r.error}` : ""}`
  );
}

function otherLine(label: string, r: DemoRunResult): string {
  const s = r.summary;
  const parts = Object.entries(s)
    .filter(([, v]) => typeof v === "number")
    .map(([k, v]) => `${k} ${String(v)}`);
  return `  ${label.padEnd(19)} ${r.status.padEnd(9)} ${parts.join(", ")}${r.error ? ` — ${r.error}` : ""}`;
}

/** Where the demo's runs read the fake's credentials (given to each run, for that run alone). */
const DEMO_APPLICATION_ID_ENV = "TIDEMARK_DEMO_RAKUTEN_APPLICATION_ID";
const DEMO_ACCESS_KEY_ENV = "TIDEMARK_DEMO_RAKUTEN_ACCESS_KEY";

/** The demo's `pipelines.rakuten`: the fake's URL, no environment override, its credentials. */
function demoSettings(url: string): Record<string, unknown> {
  return {
    base_url: url,
    requests_per_second: 50,
    use_env: false,
    application_id_env: DEMO_APPLICATION_ID_ENV,
    access_key_env: DEMO_ACCESS_KEY_ENV,
  };
}

/**
 * `tidemark demo` for rakuten: the whole chain against the API fake (rankings → items →
 * genres → tags → is_active → embedding texts → embeddings, local lexical provider), then a
 * second day where one price changed and one item's images were reordered: the rerun skips
 * the unchanged items, counts the one real change and does not count the reorder.
 */
export async function runRakutenDemo(ctx: DemoContext): Promise<void> {
  const { print } = ctx;
  const api = await startRakutenFake({ size: 120, knobs: { rateLimit: false } });
  try {
    const settings = demoSettings(api.url);
    const environ = {
      [DEMO_APPLICATION_ID_ENV]: FAKE_APPLICATION_ID,
      [DEMO_ACCESS_KEY_ENV]: FAKE_ACCESS_KEY,
    };
    const run = (type: string, params: Record<string, unknown>) =>
      ctx.runJob({ job: type.replace(".", "-"), type, params, settings, environ });
    print(`Fake Rakuten Ichiba API: ${api.url} (120 gift items, formatVersion 2)`);
    print("Day 1: the whole chain");
    print(etlLine("rakuten.ranking", await run("rakuten.ranking", { genre_ids: GENRES })));
    print(etlLine("rakuten.item", await run("rakuten.item", {})));
    print(etlLine("rakuten.genre", await run("rakuten.genre", {})));
    print(etlLine("rakuten.tag", await run("rakuten.tag", {})));
    print(otherLine("rakuten.is-active", await run("rakuten.is-active", {})));
    print(otherLine("embedding-source", await run("rakuten.embedding-source", {})));
    print(otherLine("embedding", await run("rakuten.embedding", {})));

    const ranked = await new StoredItemRepo(typed<RakutenTables>(ctx.services.db)).firstByCode(2);
    const [priced, reordered] = ranked;
    if (priced === undefined || reordered === undefined) return;
    const newPrice = (priced.item_price ?? 1000) + 500;
    api.fake.catalogue.setPrice(priced.rakuten_item_code, newPrice);
    api.fake.catalogue.reorderImages(reordered.rakuten_item_code);
    print("Day 2: upstream, one price changed and one item's images were reordered");
    print(
      `  ${priced.rakuten_item_code} ${priced.item_name ?? ""}: ¥${priced.item_price} → ¥${newPrice}`,
    );
    print(
      `  ${reordered.rakuten_item_code}: images in reverse order (same content once normalized)`,
    );
    print(etlLine("rakuten.ranking", await run("rakuten.ranking", { genre_ids: GENRES })));
    const again = await run("rakuten.item", {});
    print(etlLine("rakuten.item", again));
    print(
      `  → ${n(again.summary, "unchanged_skipped")} unchanged items skipped (no raw put, no database write), ` +
        `${n(again.summary, "changed")} real change applied; the image reorder did not count.`,
    );
    print(`Ledger per entity: ${ctx.command("rakuten status")}`);
    print(`Raw history:       ${ctx.command(`rakuten raw item ${priced.rakuten_item_code}`)}`);
    print(`Similar items:     ${ctx.command(`rakuten similar ${priced.rakuten_item_code}`)}`);
    print(`Its runs:          ${ctx.command("runs ls")}`);
  } finally {
    await api.close();
  }
}
