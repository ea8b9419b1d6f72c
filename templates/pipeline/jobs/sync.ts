import { ConfigError, type JobContext, type JobResult } from "tidemark";
import { CursorStore, Ledger, runEntityEtl } from "tidemark/kit";
import { type ApiRecord, normalizeRecord, type StarterKitRecord } from "../client/schemas.ts";
import { StarterKitClient } from "../client/starter-kit-client.ts";
import type { SyncParams } from "../params.ts";
import { upsertRecord } from "../repos/record-repo.ts";
import type { StarterKitSettings } from "../settings.ts";
import { LEDGER_TABLE, type StarterKitTables } from "../tables.ts";

/** Bump it when `upsertRecord` writes something new: every record is then applied again. */
const APPLY_VERSION = 1;
const EPOCH = "1970-01-01T00:00:00.000Z";

/** A timestamp in one spelling (UTC, milliseconds), so that text order is time order. */
function iso(at: string): string {
  return new Date(at).toISOString();
}

/** The job's position in the API: the update time of the newest record it has taken in. */
export function cursorKey(jobName: string): string {
  return `starter-kit:${jobName}`;
}

/**
 * `starter-kit.sync`: pages the records updated since the cursor, skips the unchanged ones
 * through the ledger, writes the changed ones, then moves the cursor — only when every record
 * it read was written, so nothing is skipped on the strength of a failed run.
 */
export async function runSync(
  ctx: JobContext<StarterKitSettings>,
  params: SyncParams,
): Promise<JobResult> {
  const { baseUrl, pageSize, requestsPerSecond } = ctx.settings;
  if (!baseUrl) {
    throw new ConfigError(
      "pipelines.starter-kit.base_url is not set (or TIDEMARK_STARTER_KIT_URL; `tidemark fake starter-kit` prints one)",
    );
  }
  const client = new StarterKitClient({
    baseUrl,
    requestsPerSecond,
    logger: ctx.logger,
    // Each attempt counts in the HTTP metrics of `tidemark serve` and `tidemark worker`.
    onRequest: ctx.reportHttpRequest,
  });
  const cursors = new CursorStore(ctx.db, ctx.clock);
  const key = cursorKey(ctx.jobName);
  const since = iso((await cursors.get<string>(key))?.value ?? params.since ?? EPOCH);

  const read = new Map<string, ApiRecord>();
  let pages = 0;
  async function* targets(): AsyncGenerator<string> {
    for await (const page of client.pages(since, params.page_size ?? pageSize, ctx.signal)) {
      pages++;
      for (const record of page.data.records) {
        const seen = read.has(record.id);
        read.set(record.id, record);
        if (!seen) yield record.id;
      }
    }
  }
  let watermark = since;
  const result = await runEntityEtl<ApiRecord, StarterKitRecord, StarterKitTables>({
    ctx,
    source: "starter-kit",
    entity: "record",
    targets,
    ledger: new Ledger(ctx.db, LEDGER_TABLE, ctx.clock),
    applyVersion: APPLY_VERSION,
    async fetch(id) {
      const record = read.get(id);
      if (record && iso(record.updated_at) > watermark) watermark = iso(record.updated_at);
      return record;
    },
    normalize: (record) => normalizeRecord(record),
    apply: ({ tx, document, contentHash }) => upsertRecord(tx, document, contentHash, ctx.runId),
  });

  const complete = result.status === "succeeded" && result.summary.failure_count === 0;
  const moved = complete && !ctx.dryRun && watermark !== since;
  if (moved) await ctx.commit((tx) => cursors.within(tx).set(key, watermark));
  return {
    ...result,
    summary: {
      ...result.summary,
      pages,
      cursor_before: since,
      cursor_after: moved ? watermark : since,
    },
  };
}
