import { describeError } from "../../infra/errors.ts";

/** Which step of a target failed. */
export type EtlFailureKind = "target" | "fetch" | "normalize" | "put" | "apply" | "raw";

/** One failed target, as the run's summary lists it. */
export interface EtlFailure {
  target: string;
  kind: EtlFailureKind;
  message: string;
}

/** How many failures a summary lists; the rest are counted in `failures_omitted`. */
export const MAX_LISTED_FAILURES = 20;

/** The default `maxFailureRate`: more than 5% of targets failed → the run fails. */
export const DEFAULT_MAX_FAILURE_RATE = 0.05;

const MAX_MESSAGE = 300;

/** The first line of an error, capped, for a summary. */
function oneLine(err: unknown): string {
  const line = describeError(err).split("\n")[0] ?? "";
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE - 1)}…` : line;
}

/** Counts outcomes of one ETL run and keeps the first failures. */
export class EtlTally<C extends string> {
  readonly counts: Record<C, number>;
  readonly failures: EtlFailure[] = [];
  failureCount = 0;
  omitted = 0;

  constructor(names: readonly C[]) {
    this.counts = Object.fromEntries(names.map((n) => [n, 0])) as Record<C, number>;
  }

  add(name: C, n = 1): void {
    this.counts[name] += n;
  }

  /** Records a target's failure (listed while there is room). */
  fail(target: string, kind: EtlFailureKind, err: unknown): void {
    this.failureCount += 1;
    if (this.failures.length < MAX_LISTED_FAILURES) {
      this.failures.push({ target, kind, message: oneLine(err) });
    } else {
      this.omitted += 1;
    }
  }
}

/** The counts every ETL summary starts with (a type, so summaries fit JobResult's record). */
export type EtlTotals = {
  total_targets: number;
  success_count: number;
  failure_count: number;
  /** failure_count / total_targets (0 for no targets), rounded to 4 decimals. */
  failure_rate: number;
};

/** Totals from the number of targets that ended and the number that failed. */
export function etlTotals(total: number, failures: number): EtlTotals {
  const rate = total === 0 ? 0 : Math.round((failures / total) * 10_000) / 10_000;
  return {
    total_targets: total,
    success_count: total - failures,
    failure_count: failures,
    failure_rate: rate,
  };
}

/** A JobResult-shaped verdict: `failed` when the failure rate exceeds `maxFailureRate`. */
export function etlVerdict(
  what: string,
  totals: EtlTotals,
  maxFailureRate: number,
): { status: "succeeded" | "failed"; message?: string } {
  const exact = totals.total_targets === 0 ? 0 : totals.failure_count / totals.total_targets;
  if (exact <= maxFailureRate) return { status: "succeeded" };
  const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
  return {
    status: "failed",
    message: `${what}: ${totals.failure_count} of ${totals.total_targets} targets failed (${pct(exact)}), more than the allowed ${pct(maxFailureRate)}`,
  };
}
