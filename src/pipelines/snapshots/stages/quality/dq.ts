import type { SupplierConfig } from "../intake/config/supplier-config.ts";
import type { ReasonCode } from "./reason-codes/reason-code.ts";

/** bad_ratio = bad_rows / (good_rows + bad_rows); 0 for a file without data rows. */
export function badRatio(good: number, bad: number): number {
  const total = good + bad;
  return total === 0 ? 0 : bad / total;
}

/** The DQ verdict of a snapshot. */
export type DqDecision = { pass: true } | { pass: false; reason: ReasonCode; detail: string };

/**
 * The snapshot-level DQ checks. 0 facts: allowed only with allow_empty_snapshot (min_fact_count then does not apply);
 * otherwise fewer than min_fact_count facts FAILs; a ratio equal to max_bad_ratio passes,
 * anything above FAILs.
 */
export function decideDq(
  cfg: Pick<SupplierConfig, "min_fact_count" | "max_bad_ratio" | "allow_empty_snapshot">,
  good: number,
  bad: number,
): DqDecision {
  const ratio = badRatio(good, bad);
  if (good === 0 && !cfg.allow_empty_snapshot) {
    return {
      pass: false,
      reason: "DQ_EMPTY_SNAPSHOT",
      detail: "0 facts and allow_empty_snapshot is false",
    };
  }
  if (good > 0 && good < cfg.min_fact_count) {
    return {
      pass: false,
      reason: "DQ_MIN_FACT_COUNT",
      detail: `${good} facts, min_fact_count is ${cfg.min_fact_count}`,
    };
  }
  if (ratio > cfg.max_bad_ratio) {
    return {
      pass: false,
      reason: "DQ_BAD_RATIO_EXCEEDED",
      detail: `bad_ratio ${round(ratio)} (${bad}/${good + bad}) > max_bad_ratio ${cfg.max_bad_ratio}`,
    };
  }
  return { pass: true };
}

/** Six significant decimals, for messages and stats. */
export function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
