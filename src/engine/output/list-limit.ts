import { UsageError } from "../errors.ts";

/** Largest LIMIT both databases accept (a 32-bit integer). */
const MAX_LIMIT = 2_147_483_647;

/**
 * `--limit <n>` of a listing command: digits only, 1 to 2147483647, else a usage error (exit 2)
 * naming the option; absent = `fallback`.
 */
export function listLimit(value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const text = String(value);
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_LIMIT) {
    throw new UsageError(
      `--limit must be a whole number from 1 to ${MAX_LIMIT}, not ${JSON.stringify(value)}`,
    );
  }
  return Number(text);
}
