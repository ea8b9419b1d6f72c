/**
 * `tidemark/kit`: the toolkit a pipeline author reaches for. An HTTP client with retries, rate
 * limits and paging helpers; content hashing; entity ETL with the ledger that skips unchanged
 * records and the immutable raw store; cursors (committed through `ctx.commit`, the fenced
 * commit); shared rate limits; the fake-server harness; database and time helpers. The list is
 * written by hand: a name is public because it is listed here (docs/api/kit.md documents each).
 */

// Time
export { isoTimestamp, truncateToSeconds, utcDayStart } from "../engine/clock/clock.ts";
// Cursors
export { type CursorEntry, type CursorState, CursorStore } from "../engine/cursors/cursor-store.ts";
export type { CursorsTable, CursorTables } from "../engine/cursors/cursor-tables.ts";
// Entity ETL: fetch, normalize, hash, ledger, immutable raw, apply
export type { ApplyItem } from "../engine/entity-etl/apply-each.ts";
export type { EtlFailure, EtlFailureKind, EtlTotals } from "../engine/entity-etl/etl-tally.ts";
export type {
  Applier,
  ApplyInput,
  BatchApplier,
  EtlAppliers,
  EtlContext,
  EtlTuning,
  TargetSource,
} from "../engine/entity-etl/etl-types.ts";
export { Ledger, type LedgerStats, type LedgerUpsert } from "../engine/entity-etl/ledger.ts";
export {
  createLedgerTable,
  type LedgerRow,
  type LedgerTable,
} from "../engine/entity-etl/ledger-table.ts";
export { rawKey, rawSegmentProblem } from "../engine/entity-etl/raw-key.ts";
export { type RawPutResult, RawStore, type RawVersion } from "../engine/entity-etl/raw-store.ts";
export {
  type ReapplyOptions,
  type ReapplyResult,
  type ReapplySummary,
  reapplyEntity,
} from "../engine/entity-etl/reapply-entity.ts";
export {
  type EntityEtlOptions,
  type EntityEtlResult,
  type EntityEtlSummary,
  runEntityEtl,
} from "../engine/entity-etl/run-entity-etl.ts";
// Fakes of outside APIs
export {
  type DelaySetting,
  type FakeHandler,
  type FakeServer,
  type FakeServerOptions,
  type FakeServerStats,
  FaultController,
  type FaultOptions,
  type PathPattern,
  type RateLimitFault,
  type RecordedRequest,
  type StatusStep,
  startFakeServer,
} from "../engine/fakes/fake-server.ts";
// Content hashing
export { canonicalJson, compareCodePoints } from "../engine/hashing/canonical-json.ts";
export { contentHash, sha256Hex } from "../engine/hashing/content-hash.ts";
export type { JsonObject, JsonValue } from "../engine/hashing/json-value.ts";
export { findLoneSurrogate } from "../engine/hashing/lone-surrogate.ts";
// HTTP
export { HttpClient } from "../engine/http/http-client.ts";
export type {
  GetJsonOptions,
  HttpClientOptions,
  HttpRequestEvent,
  HttpResponse,
  QueryParams,
  QueryValue,
  RequestOptions,
  SharedLimitOptions,
  SharedTokenLimiter,
} from "../engine/http/http-client-types.ts";
export {
  BadPayloadError,
  ClientHttpError,
  HttpError,
  NotFoundHttpError,
  QuotaExceededError,
  type ResponseHead,
  RetryableHttpError,
  redactedExcerpt,
} from "../engine/http/http-errors.ts";
export {
  type NextUrlPaging,
  type OffsetPaging,
  type Page,
  type PageDecoder,
  type PageRequest,
  PaginationError,
  type PagingOptions,
  paginateByNextUrl,
  paginateByOffset,
  paginateByToken,
  type TokenPaging,
} from "../engine/http/paginate.ts";
export { parseJsonBody } from "../engine/http/parse-json-body.ts";
export { RetryPolicy, type RetryPolicyOptions } from "../engine/http/retry-policy.ts";
// Runs, leases, worker threads
export { startHeartbeat } from "../engine/leases/lease-heartbeat.ts";
// Output
export { formatTable } from "../engine/output/format-table.ts";
export { listLimit } from "../engine/output/list-limit.ts";
// Shared rate limits
export {
  SharedRateLimiter,
  type SharedRateLimiterOptions,
} from "../engine/rate-limit/shared-rate-limiter.ts";
export { sendBatchTo, sendTo } from "../engine/registry/queue-handler-definition.ts";
export { interruptSignal } from "../engine/runs/interrupt-signal.ts";
export { newRunId } from "../engine/runs/run-id.ts";
export { startWorkerThread } from "../engine/threads/start-worker-thread.ts";
export { WarmThreads } from "../engine/threads/warm-threads.ts";
// Queues
export { type DrainOptions, type DrainReport, drainQueue } from "../engine/workers/drain-queue.ts";
// Blobs and durable files
export { BlobNotFoundError, type BlobStore } from "../infra/blobs/blob-store.ts";
export { fsyncDir, isStrictlyInside, mkdirDurable } from "../infra/blobs/fs-dirs.ts";
/** True for the temp names the fs blob driver writes before renaming onto an object. */
export { isTempName as isBlobTempName } from "../infra/blobs/fs-temp-name.ts";
export { codeCommit } from "../infra/build/code-commit.ts";
// Configuration files
export { formatZodIssues } from "../infra/config/format-zod-issues.ts";
export { readYamlFile } from "../infra/config/load-config.ts";
// Database
export { columnTypes, type DialectName, dialectOf, ensureSchema } from "../infra/db/dialect.ts";
export { typed } from "../infra/db/open-database.ts";
export { chunks } from "../infra/db/statement-batches.ts";
export { LeaseLostError } from "../infra/errors.ts";
