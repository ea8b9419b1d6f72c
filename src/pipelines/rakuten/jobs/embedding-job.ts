/**
 * `rakuten.embedding`: embeds the diff of `apl.item_embedding_source` against
 * `apl.item_embedding` — items with no embedding, whose source hash changed, embedded by
 * another model or under another EMBEDDING_APPLY_VERSION — in batches of `embeddings.batch_size`, and stores each vector with the model
 * name and the source hash it was computed from, one fenced commit per batch. A batch the
 * provider fails on is those items' failure and the run goes on; a refused key, an unknown
 * model or URL fails the run at once.
 */
import type { Transaction } from "kysely";
import { ConfigError, describeError, type JobContext, type JobResult } from "tidemark";
import { isoTimestamp, typed } from "tidemark/kit";
import type { EmbeddingParams } from "../params.ts";
import { EmbeddingStore, type EmbedReason, type EmbedTarget } from "../repos/embedding-store.ts";
import type { RakutenSettings } from "../settings.ts";
import { createEmbeddingProvider } from "../stages/embeddings/create-provider.ts";
import type { EmbeddingProvider } from "../stages/embeddings/provider.ts";
import type { RakutenTables } from "../tables.ts";

/**
 * Stored with every vector: bump it when what is stored for a vector changes (how it is computed
 * or written) and the next run re-embeds every item, as every other job's apply version re-applies.
 * A change of the text recipe is EMBEDDING_SOURCE_APPLY_VERSION's.
 */
export const EMBEDDING_APPLY_VERSION = 1;

/** Listed failures are capped, as the entity ETL does. */
const MAX_LISTED = 20;

interface EmbedTally {
  missing: number;
  source_changed: number;
  model_changed: number;
  version_changed: number;
  embedded: number;
  failure_count: number;
  batches: number;
  failures: Array<{ target: string; kind: string; message: string }>;
}

/** Runs the job over the whole diff (or `ctx.limit` items of it). */
export async function runEmbedding(
  ctx: JobContext<RakutenSettings>,
  params: EmbeddingParams,
): Promise<JobResult> {
  const provider = createEmbeddingProvider(
    { ...ctx.settings.embeddings, maxAttempts: ctx.settings.retryMaxAttempts },
    ctx.environ,
    ctx.logger,
    ctx.reportHttpRequest,
  );
  const store = new EmbeddingStore(typed<RakutenTables>(ctx.db));
  const tally: EmbedTally = {
    missing: 0,
    source_changed: 0,
    model_changed: 0,
    version_changed: 0,
    embedded: 0,
    failure_count: 0,
    batches: 0,
    failures: [],
  };
  const cap = ctx.limit ?? Number.POSITIVE_INFINITY;
  const progress = ctx.progress("rakuten embedding");
  let after = "";
  let seen = 0;
  try {
    while (seen < cap) {
      ctx.signal.throwIfAborted();
      const size = Math.min(provider.batchSize, cap - seen);
      const page = await store.diffPage(after, size, {
        model: provider.model,
        dimensions: provider.dimensions,
        applyVersion: EMBEDDING_APPLY_VERSION,
      });
      if (page.length === 0) break;
      after = page[page.length - 1]!.itemCode;
      seen += page.length;
      for (const t of page) tally[t.reason satisfies EmbedReason]++;
      if (!ctx.dryRun) await embedBatch(ctx, provider, page, tally);
      progress.tick(page.length, { embedded: tally.embedded, failed: tally.failure_count });
    }
  } finally {
    progress.stop();
  }
  return verdict(ctx, provider, params, seen, tally);
}

/** Embeds one page and commits it; a provider failure is the page's items' failure. */
async function embedBatch(
  ctx: JobContext<RakutenSettings>,
  provider: EmbeddingProvider,
  page: readonly EmbedTarget[],
  tally: EmbedTally,
): Promise<void> {
  let vectors: number[][];
  try {
    vectors = await provider.embed(
      page.map((t) => t.sourceText),
      ctx.signal,
    );
  } catch (err) {
    if (err instanceof ConfigError || ctx.signal.aborted) throw err;
    const message = describeError(err);
    ctx.logger.warn({ items: page.length, err }, "embedding batch failed");
    tally.failure_count += page.length;
    for (const t of page) {
      if (tally.failures.length < MAX_LISTED) {
        tally.failures.push({ target: t.itemCode, kind: "embed", message });
      }
    }
    return;
  }
  const now = isoTimestamp(ctx.clock.now());
  const rows = page.map((t, i) => ({
    itemCode: t.itemCode,
    model: provider.model,
    sourceHash: t.sourceHash,
    vector: vectors[i]!,
    appliedVersion: EMBEDDING_APPLY_VERSION,
  }));
  tally.embedded += await ctx.commit((tx: Transaction<RakutenTables>) =>
    new EmbeddingStore(tx).upsertEmbeddings(rows, now),
  );
  tally.batches++;
}

/** The run's result: `failed` when more than `max_failure_rate` of the items failed. */
function verdict(
  ctx: JobContext<RakutenSettings>,
  provider: EmbeddingProvider,
  params: EmbeddingParams,
  total: number,
  tally: EmbedTally,
): JobResult {
  const failureRate = total === 0 ? 0 : tally.failure_count / total;
  const summary = {
    provider: ctx.settings.embeddings.provider,
    model: provider.model,
    kind: provider.kind,
    apply_version: EMBEDDING_APPLY_VERSION,
    dry_run: ctx.dryRun,
    total_targets: total,
    success_count: total - tally.failure_count,
    failure_rate: failureRate,
    ...tally,
    failures_omitted: tally.failure_count - tally.failures.length,
    ...(ctx.dryRun ? { would_embed: total } : {}),
  };
  if (failureRate > params.max_failure_rate) {
    return {
      status: "failed",
      message: `rakuten embedding: ${tally.failure_count} of ${total} items failed (${(failureRate * 100).toFixed(1)}% > ${(params.max_failure_rate * 100).toFixed(1)}% allowed)`,
      summary,
    };
  }
  return { status: total === 0 ? "skipped" : "succeeded", summary };
}
