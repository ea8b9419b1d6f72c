/**
 * `rakuten.embedding-source`: builds each item's embedding text from `apl.item`
 * (name, catch copy, genre name, tag names, start of the caption) with its source hash, and
 * writes only the rows whose hash differs from `apl.item_embedding_source`, through the run's
 * fenced commit. It does not use the entity ETL skeleton: its input is the database, not an API.
 */
import type { Transaction } from "kysely";
import type { JobContext, JobResult } from "tidemark";
import { isoTimestamp, typed } from "tidemark/kit";
import type { EmbeddingSourceParams } from "../params.ts";
import { EmbeddingStore } from "../repos/embedding-store.ts";
import { StoredItemRepo } from "../repos/stored-item-repo.ts";
import type { RakutenSettings } from "../settings.ts";
import {
  buildSourceText,
  EMBEDDING_SOURCE_APPLY_VERSION,
  sourceHash,
} from "../stages/embeddings/source-text.ts";
import type { RakutenTables } from "../tables.ts";

export { EMBEDDING_SOURCE_APPLY_VERSION };

/** Counts of one run. */
interface SourceTally {
  items: number;
  unchanged: number;
  added: number;
  changed: number;
  written: number;
}

/** Runs the job: every item is compared; new and changed texts are written. */
export async function runEmbeddingSource(
  ctx: JobContext<RakutenSettings>,
  params: EmbeddingSourceParams,
): Promise<JobResult> {
  const db = typed<RakutenTables>(ctx.db);
  const store = new EmbeddingStore(db);
  const tally: SourceTally = { items: 0, unchanged: 0, added: 0, changed: 0, written: 0 };
  const stored = await new StoredItemRepo(db).count();
  const total = ctx.limit === undefined ? stored : Math.min(stored, ctx.limit);
  const progress = ctx.progress("rakuten embedding-source", total);
  let after = "";
  try {
    while (tally.items < total) {
      ctx.signal.throwIfAborted();
      const page = await store.itemPage(after, Math.min(params.batch_size, total - tally.items));
      if (page.length === 0) break;
      after = page[page.length - 1]!.itemCode;
      const tags = await store.tagNames(page.map((i) => i.id));
      const known = await store.sourceHashes(page.map((i) => i.itemCode));
      const writes: Array<{ itemCode: string; text: string; hash: string }> = [];
      for (const item of page) {
        const text = buildSourceText({ ...item, tagNames: tags.get(item.id) ?? [] });
        const hash = sourceHash(text);
        const before = known.get(item.itemCode);
        if (before === hash) tally.unchanged++;
        else {
          tally[before === undefined ? "added" : "changed"]++;
          writes.push({ itemCode: item.itemCode, text, hash });
        }
      }
      tally.items += page.length;
      if (!ctx.dryRun && writes.length > 0) {
        const now = isoTimestamp(ctx.clock.now());
        tally.written += await ctx.commit((tx: Transaction<RakutenTables>) =>
          new EmbeddingStore(tx).upsertSources(writes, now),
        );
      }
      progress.tick(page.length, { changed: tally.added + tally.changed });
    }
  } finally {
    progress.stop();
  }
  const summary = {
    apply_version: EMBEDDING_SOURCE_APPLY_VERSION,
    dry_run: ctx.dryRun,
    ...tally,
    ...(ctx.dryRun ? { would_write: tally.added + tally.changed } : {}),
  };
  return {
    status: tally.items === 0 ? "skipped" : "succeeded",
    ...(tally.items === 0 ? { message: "no items yet: run rakuten.item first" } : {}),
    summary,
  };
}
