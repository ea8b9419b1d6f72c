import { ConfigError, type JobContext, type JobResult } from "tidemark";
import { CursorStore, Ledger, runEntityEtl } from "tidemark/kit";
import { RegistryClient } from "../client/registry-client.ts";
import { normalizePackage, type PackageDocument, type RegistryPackage } from "../client/schemas.ts";
import type { FollowParams } from "../params.ts";
import { deletePackages, upsertPackage } from "../repos/package-repo.ts";
import type { RegistryFeedSettings } from "../settings.ts";
import { LEDGER_TABLE, type RegistryFeedTables } from "../tables.ts";

/** Bump it when `upsertPackage` writes something new: every package is then applied again. */
const APPLY_VERSION = 1;

/** The job's position in the feed: the last change sequence it has taken in. */
export function cursorKey(jobName: string): string {
  return `registry-feed:${jobName}`;
}

/** What the feed said since the cursor: the packages to fetch and the ones removed. */
interface FeedRead {
  changed: string[];
  deleted: string[];
  lastSeq: number;
  pages: number;
}

/** Reads the changes feed from `since` to its end; a package's last change decides. */
async function readFeed(
  client: RegistryClient,
  since: number,
  batch: number,
  signal: AbortSignal,
): Promise<FeedRead> {
  const last = new Map<string, boolean>();
  let lastSeq = since;
  let pages = 0;
  for await (const page of client.changes(since, batch, signal)) {
    pages++;
    for (const c of page.data.results) last.set(c.id, c.deleted === true);
    if (page.data.results.length > 0) lastSeq = page.data.last_seq;
  }
  const names = [...last.keys()];
  return {
    changed: names.filter((n) => !last.get(n)),
    deleted: names.filter((n) => last.get(n)),
    lastSeq,
    pages,
  };
}

/**
 * `registry-feed.follow`: reads the changes feed after the cursor, fetches each changed
 * package (unchanged documents are skipped through the ledger), writes the changed ones,
 * removes the unpublished ones, and moves the cursor with the removals in one fenced commit —
 * only when every package it read was written.
 */
export async function runFollow(
  ctx: JobContext<RegistryFeedSettings>,
  params: FollowParams,
): Promise<JobResult> {
  const { baseUrl, batch, concurrency, requestsPerSecond } = ctx.settings;
  if (!baseUrl) {
    throw new ConfigError(
      "pipelines.registry-feed.base_url is not set (or TIDEMARK_REGISTRY_FEED_URL; `tidemark fake registry-feed` prints one)",
    );
  }
  const client = new RegistryClient({
    baseUrl,
    requestsPerSecond,
    concurrency,
    logger: ctx.logger,
    onRequest: ctx.reportHttpRequest,
  });
  const cursors = new CursorStore(ctx.db, ctx.clock);
  const key = cursorKey(ctx.jobName);
  const since = (await cursors.get<number>(key))?.value ?? params.since ?? 0;
  const feed = await readFeed(client, since, params.batch ?? batch, ctx.signal);
  const partial = ctx.limit !== undefined && feed.changed.length > ctx.limit;

  const result = await runEntityEtl<PackageDocument, RegistryPackage, RegistryFeedTables>({
    ctx,
    source: "registry",
    entity: "package",
    targets: feed.changed,
    concurrency,
    ledger: new Ledger(ctx.db, LEDGER_TABLE, ctx.clock),
    applyVersion: APPLY_VERSION,
    fetch: (name, signal) => client.package(name, signal),
    normalize: (doc) => normalizePackage(doc),
    apply: ({ tx, document, contentHash }) => upsertPackage(tx, document, contentHash, ctx.runId),
  });

  const complete = result.status === "succeeded" && result.summary.failure_count === 0;
  const move = complete && !partial && !ctx.dryRun && feed.lastSeq !== since;
  let removed = 0;
  if (move) {
    removed = await ctx.commit<RegistryFeedTables, number>(async (tx) => {
      const n = await deletePackages(tx, feed.deleted);
      await cursors.within(tx).set(key, feed.lastSeq);
      return n;
    });
  }
  return {
    ...result,
    summary: {
      ...result.summary,
      pages: feed.pages,
      removed,
      cursor_before: since,
      cursor_after: move ? feed.lastSeq : since,
    },
  };
}
