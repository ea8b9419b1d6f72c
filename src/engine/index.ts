/**
 * The engine's public face: everything a pipeline may use of the engine and of infra, and
 * nothing else. Pipelines import only from here or from its light part `define.ts` (a lint
 * rule enforces it). A pipeline's `index.ts` (its definition, imported by `tidemark --help`)
 * and what it imports statically use `define.ts` alone, which loads no database, HTTP or
 * logging code.
 */

// Blobs and durable files
export { BlobNotFoundError, type BlobStore } from "../infra/blobs/blob-store.ts";
export { fsyncDir, isStrictlyInside, mkdirDurable } from "../infra/blobs/fs-dirs.ts";
/** True for the temp names the fs blob driver writes before renaming onto an object. */
export { isTempName as isBlobTempName } from "../infra/blobs/fs-temp-name.ts";
export { codeCommit } from "../infra/build/code-commit.ts";
export { formatZodIssues } from "../infra/config/format-zod-issues.ts";
// What a run and a command receive
export { readYamlFile } from "../infra/config/load-config.ts";
export { columnTypes, type DialectName, dialectOf, ensureSchema } from "../infra/db/dialect.ts";
// Database
export { typed } from "../infra/db/open-database.ts";
export { type Clock, isoTimestamp, truncateToSeconds, utcDayStart } from "./context/clock.ts";
// Cursors and shared rate limits
export * from "./cursors/index.ts";
export * from "./define.ts";
// Entity ETL
export * from "./entity-etl/index.ts";
export { startFakeServer } from "./fakes/fake-server.ts";
// Content hashing
export * from "./hashing/index.ts";
export { findLoneSurrogate } from "./hashing/lone-surrogate.ts";
// Outside APIs and their fakes
export * from "./http/index.ts";
// Jobs and runs
export { JobService } from "./jobs/job-service.ts";
export { startHeartbeat } from "./leases/lease-heartbeat.ts";
// Output, threads, build
export { formatTable } from "./output/format-table.ts";
export { listLimit } from "./output/list-limit.ts";
/** Opens the configured queue engine (a job or command that fans work out to queue handlers). */
export { openQueue } from "./queue/open-queue.ts";
export * from "./rate-limit/index.ts";
export { interruptSignal } from "./runs/interrupt-signal.ts";
export { executeRun, type RunReport } from "./runs/job-runner.ts";
export { newRunId } from "./runs/run-id.ts";
export { startWorkerThread } from "./threads/start-worker-thread.ts";
/** The context a queue handler gets (a pipeline that works its own queue in-process: demo, tests). */
export { queueHandlerContext } from "./workers/index.ts";
