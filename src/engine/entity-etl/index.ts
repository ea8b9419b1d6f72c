/** Entity ETL: fetch → normalize → hash → ledger → immutable raw → apply, for any pipeline. */
export type { ApplyItem } from "./apply-each.ts";
export {
  DEFAULT_MAX_FAILURE_RATE,
  type EtlFailure,
  type EtlFailureKind,
  type EtlTotals,
  MAX_LISTED_FAILURES,
} from "./etl-tally.ts";
export type {
  Applier,
  ApplyInput,
  BatchApplier,
  EtlAppliers,
  EtlContext,
  EtlTuning,
  TargetSource,
} from "./etl-types.ts";
export { type AppliedTarget, Ledger, type LedgerStats, type LedgerUpsert } from "./ledger.ts";
export { createLedgerTable, type LedgerRow, type LedgerTable } from "./ledger-table.ts";
export { RAW_ENV_MARKER_KEY, RawEnvMismatchError } from "./raw-env-marker.ts";
export {
  hashOfRawKey,
  type RawKeyParts,
  rawKey,
  rawSegmentProblem,
  rawTargetPrefix,
} from "./raw-key.ts";
export { type RawPutResult, RawStore, type RawVersion } from "./raw-store.ts";
export {
  type ReapplyOptions,
  type ReapplyResult,
  type ReapplySummary,
  reapplyEntity,
} from "./reapply-entity.ts";
export {
  type EntityEtlOptions,
  type EntityEtlResult,
  type EntityEtlSummary,
  runEntityEtl,
} from "./run-entity-etl.ts";
