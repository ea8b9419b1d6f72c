import { setFlagsFromString } from "node:v8";
import { ConfigError } from "../errors.ts";

/** The environment variable that sets (or, with 0, leaves to V8) the heap growth factor. */
export const HEAP_GROWING_PERCENT_ENV = "TIDEMARK_HEAP_GROWING_PERCENT";

// V8 lets the old generation grow to up to 4× what survived the last full GC before the next
// one. A job that streams 100,000 items keeps ~30 MB alive but churns ~100 KB an item, so the
// heap's pages grew to ~190 MB. Doubling at most (100%) held a 30,000-item Rakuten first load at
// ~210 MB peak RSS instead of ~280 MB, for 0-5% more CPU (50%: ~200 MB for ~7%).
const DEFAULT_PERCENT = 100;
const MAX_PERCENT = 1000;

/**
 * Sets V8's old-generation growth factor for this process to 1 + percent/100, from
 * TIDEMARK_HEAP_GROWING_PERCENT (default 100; 0 keeps V8's own, up to 4×). V8 reads the factor at
 * each full GC, so setting it after start-up takes effect. Returns the percent applied.
 */
export function applyHeapGrowth(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[HEAP_GROWING_PERCENT_ENV]?.trim();
  const percent = raw === undefined || raw === "" ? DEFAULT_PERCENT : Number(raw);
  if ((raw && !/^\d+$/.test(raw)) || percent > MAX_PERCENT) {
    throw new ConfigError(
      `${HEAP_GROWING_PERCENT_ENV}: expected a whole number from 0 to ${MAX_PERCENT}, got ${JSON.stringify(raw)}`,
    );
  }
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  return percent;
}
