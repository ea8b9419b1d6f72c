import { randomBytes } from "node:crypto";
import type { Transaction } from "kysely";
import { AlreadyRunningError } from "tidemark";
import { startHeartbeat } from "tidemark/kit";
import type { MercariTables } from "../../tables.ts";
import type { CrawlContext } from "./crawl-context.ts";

/** A write under the product's lease: nothing is written once the lease is lost. */
export type FencedCommit = <T>(
  effect: (tx: Transaction<MercariTables>) => Promise<T>,
) => Promise<T>;

/** A crawl's hold on its product: its fenced writes, the signal that stops it, and release. */
export interface ProductLease {
  readonly commit: FencedCommit;
  /** Aborted by the caller's signal, or when the lease is lost. */
  readonly signal: AbortSignal;
  release(): Promise<void>;
}

const LEASE_TTL_MS = 60_000;

/**
 * Takes the product's crawl lease (AlreadyRunningError while another crawl holds it) and keeps
 * it alive with a heartbeat until `release`, so two crawls of one product never interleave.
 */
export async function acquireProductLease(
  ctx: Pick<CrawlContext, "leases" | "logger">,
  productId: number,
  signal?: AbortSignal,
): Promise<ProductLease> {
  const key = `mercari.crawl:product:${productId}`;
  const holder = `list_${randomBytes(6).toString("hex")}`;
  const lease = await ctx.leases.tryAcquire(key, holder, LEASE_TTL_MS);
  if (!lease) {
    const current = await ctx.leases.get(key);
    throw new AlreadyRunningError(`mercari crawl of product ${productId}`, current?.holder);
  }
  const lost = new AbortController();
  const heartbeat = startHeartbeat({
    leases: ctx.leases,
    key,
    holder,
    ttlMs: LEASE_TTL_MS,
    logger: ctx.logger,
    onLost: () => lost.abort(new Error(`lease ${key} lost`)),
  });
  return {
    commit: (effect) => ctx.leases.fencedCommit(lease, LEASE_TTL_MS, effect),
    signal: signal ? AbortSignal.any([signal, lost.signal]) : lost.signal,
    release: async () => {
      heartbeat.stop();
      await ctx.leases.release(key, holder);
    },
  };
}
