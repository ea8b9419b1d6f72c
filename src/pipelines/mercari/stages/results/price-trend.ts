import { UsageError } from "tidemark";
import { isoTimestamp } from "tidemark/kit";
import { trendBoundMs } from "./trend-bounds.ts";

/** Per bucket: how many sold, and the spread of their prices. */
export interface TrendBucket {
  bucket: string;
  count: number;
  min: number;
  p25: number;
  median: number;
  p75: number;
  max: number;
}

const DAY_MS = 86_400_000;

/** The bucket's first day (YYYY-MM-DD, UTC): the day itself, or the Monday of its week. */
export function bucketOf(iso: string, bucket: "day" | "week"): string {
  const day = iso.slice(0, 10);
  if (bucket === "day") return day;
  const t = Date.parse(`${day}T00:00:00Z`);
  const sinceMonday = (new Date(t).getUTCDay() + 6) % 7;
  return new Date(t - sinceMonday * DAY_MS).toISOString().slice(0, 10);
}

/** Linear-interpolation quantile of sorted values (the common "type 7" definition). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] ?? 0;
  const b = sorted[hi] ?? a;
  return a + (b - a) * (pos - lo);
}

/** Groups sold prices into day or week buckets, oldest first. */
export function priceTrend(
  sold: ReadonlyArray<{ price: number; sold_out_at: string }>,
  bucket: "day" | "week",
): TrendBucket[] {
  const groups = new Map<string, number[]>();
  for (const s of sold) {
    const key = bucketOf(s.sold_out_at, bucket);
    const list = groups.get(key) ?? [];
    list.push(s.price);
    groups.set(key, list);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, prices]) => {
      const sorted = prices.sort((a, b) => a - b);
      return {
        bucket: key,
        count: sorted.length,
        min: sorted[0] ?? 0,
        p25: quantile(sorted, 0.25),
        median: quantile(sorted, 0.5),
        p75: quantile(sorted, 0.75),
        max: sorted[sorted.length - 1] ?? 0,
      };
    });
}

function boundOf(text: string, name: "from" | "to"): number {
  const ms = trendBoundMs(text);
  if (Number.isNaN(ms)) {
    throw new UsageError(`${name} must be a real date or timestamp, got ${JSON.stringify(text)}`);
  }
  return ms;
}

/**
 * The [from, to) window as ISO timestamps: a date means its midnight UTC; default 30 days.
 * UsageError for an impossible date or an empty window (from not before to).
 */
export function trendWindow(now: Date, from?: string, to?: string): { from: string; to: string } {
  const toMs = to ? boundOf(to, "to") : now.getTime();
  const fromMs = from ? boundOf(from, "from") : toMs - 30 * DAY_MS;
  const window = { from: isoTimestamp(new Date(fromMs)), to: isoTimestamp(new Date(toMs)) };
  if (fromMs >= toMs) {
    // Reached with a from after now and no to: an empty table would look like "nothing sold".
    throw new UsageError(
      `from (${window.from}) must be before to (${window.to}${to ? "" : ", now"}); to is exclusive`,
    );
  }
  return window;
}
