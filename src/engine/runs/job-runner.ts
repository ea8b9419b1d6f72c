import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "../../infra/logging/logger.ts";
import { redactStrings, redactText } from "../../infra/logging/redact.ts";
import { isoTimestamp, truncateToSeconds } from "../context/clock.ts";
import type { RunStatus } from "../engine-tables.ts";
import {
  AlreadyRunningError,
  DuplicateDeliveryError,
  describeError,
  ExitCode,
  LeaseLostError,
  TidemarkError,
  UsageError,
} from "../errors.ts";
import { validateParams } from "../jobs/job-validation.ts";
import { DEFAULT_LEASE_TTL_MS, startHeartbeat } from "../leases/lease-heartbeat.ts";
import type { Lease } from "../leases/lease-store.ts";
import type { RunEndedEvent } from "../notify/run-events.ts";
import type { JobResult } from "../registry/pipeline-definition.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { newJobContext } from "./new-job-context.ts";
import { newRunId, RUN_ID_PATTERN } from "./run-id.ts";
import { RunProgressRecorder } from "./run-progress.ts";
import { RunRepo } from "./run-repo.ts";

/** What to run: a stored job, or an ad-hoc run of a job type (e.g. `snapshots run`). */
export interface RunRequest {
  jobName: string;
  jobType: string;
  params: unknown;
  dryRun?: boolean;
  limit?: number;
  /** Aborts the run (SIGINT/SIGTERM). */
  signal?: AbortSignal;
  leaseTtlMs?: number;
  /** Draw a progress bar on a TTY (off for --json). */
  progress?: boolean;
  /**
   * The caller shows the run's outcome to a person (the CLI prints its summary): the failure is
   * then logged at debug, so no log line repeats what the summary says.
   */
  callerReportsOutcome?: boolean;
  /**
   * Run id assigned when the run was requested (HTTP API: known at enqueue time). Must be
   * `<jobName>_<YYYYMMDDTHHMMSSZ>_<hex6>`; if a run already used it (a redelivered request),
   * the run gets a fresh id.
   */
  runId?: string;
  /**
   * The first delivery of a run request: the run must take `runId` itself. When another
   * delivery of the same request recorded that id first (they raced), nothing runs and
   * DuplicateDeliveryError is thrown, instead of running again under a fresh id.
   */
  exactRunId?: boolean;
}

/** The outcome of one run, as printed by the CLI: the ended-run event plus the summary. */
export interface RunReport extends RunEndedEvent {
  summary: Record<string, unknown>;
  /**
   * 2 when the run failed on a usage or config error (thrown as one, or reported by the job):
   * the exit code `tidemark run` gives then. Absent otherwise (see exitCodeFor).
   */
  exitCode?: 2;
}

/** The requested run id when it is valid and unused, else a new one. */
async function chooseRunId(
  runs: RunRepo,
  request: RunRequest,
  prefix: string,
  jobStartAt: Date,
  runtime: Runtime,
): Promise<string> {
  const wanted = request.runId;
  if (wanted === undefined) return newRunId(prefix, jobStartAt);
  const match = RUN_ID_PATTERN.exec(wanted);
  if (!match || (match[1] !== request.jobName && match[1] !== prefix)) {
    throw new UsageError(
      `run id ${JSON.stringify(wanted)} does not belong to job ${request.jobName}`,
    );
  }
  if (!(await runs.get(wanted))) return wanted;
  if (request.exactRunId) throw new DuplicateDeliveryError(wanted);
  const fresh = newRunId(prefix, jobStartAt);
  runtime.logger.warn(
    { job: request.jobName, requested: wanted, run_id: fresh },
    "run id already used; using a new one",
  );
  return fresh;
}

/**
 * Claims a requested run id for one delivery until its run's row exists, so two deliveries of
 * one request handled at the same moment cannot both start it (the job lease alone cannot
 * tell them apart: both would hold it as the same run id). Taken: DuplicateDeliveryError.
 */
async function claimRunId(runtime: Runtime, runId: string | undefined, ttlMs: number) {
  if (runId === undefined) return undefined;
  const key = `run-id:${runId}`;
  const claim = await runtime.leases.tryAcquire(key, `delivery:${randomUUID()}`, ttlMs);
  if (!claim) throw new DuplicateDeliveryError(runId);
  return claim;
}

/** Marks the run whose dead process held the lease we took over as abandoned. */
async function recordDeadHolder(
  runs: RunRepo,
  runtime: Runtime,
  from: NonNullable<Lease["tookOverFrom"]>,
  logger: Logger,
): Promise<void> {
  const { holder, owner } = from;
  await runs.markDead(
    holder,
    isoTimestamp(runtime.clock.now()),
    `process died: pid ${owner.pid} on ${owner.host} is gone`,
  );
  logger.warn(
    { previous_run_id: holder, pid: owner.pid },
    "took over the lease of a run whose process is gone",
  );
}

/** A run's status and summary from what its job returned or threw. */
function outcomeOf(
  result: JobResult | undefined,
  error: string | null,
  leaseLost: boolean,
): { status: RunStatus; summary: Record<string, unknown> } {
  // A run that lost its lease may have been overtaken: it never counts as succeeded.
  const status: RunStatus = leaseLost
    ? "abandoned"
    : error !== null
      ? "failed"
      : (result?.status ?? "succeeded");
  const summary = result?.summary ?? {};
  // A skip's reason is the one thing a user looking at the run wants to know.
  if (status === "skipped" && result?.message && summary.skip_reason === undefined) {
    summary.skip_reason = result.message;
  }
  return { status, summary };
}

/** Exit code for a finished run: 0 for succeeded/skipped, 2 for a config failure, 1 otherwise. */
export function exitCodeFor(report: Pick<RunReport, "status" | "exitCode">): number {
  if (report.status === "succeeded" || report.status === "skipped") return 0;
  return report.exitCode ?? 1;
}

/**
 * Runs one job: validates params, takes the job's lease (AlreadyRunningError if held),
 * records the run, heartbeats the lease, calls the job type and records the outcome.
 * A job that throws is recorded as `failed`; the error is returned, not rethrown.
 */
export async function executeRun(runtime: Runtime, request: RunRequest): Promise<RunReport> {
  const jobType = runtime.registry.jobType(request.jobType);
  const params = validateParams(runtime.registry, request.jobName, jobType.name, request.params);
  const runs = new RunRepo(runtime.db, runtime.events);
  const startedAt = runtime.clock.now();
  await runs.markAbandoned(isoTimestamp(startedAt));

  const jobStartAt = truncateToSeconds(startedAt);
  const prefix = jobType.runIdPrefix?.(request.jobName, params) ?? request.jobName;
  const ttl = request.leaseTtlMs ?? runtime.config.runs.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const claim = request.exactRunId ? await claimRunId(runtime, request.runId, ttl) : undefined;
  const dryRun = request.dryRun ?? false;
  let lease: Lease | undefined;
  let runId: string;
  let leaseKey: string;
  try {
    runId = await chooseRunId(runs, request, prefix, jobStartAt, runtime);
    leaseKey = jobType.leaseKey?.(request.jobName, params) ?? `job:${request.jobName}`;
    lease = await runtime.leases.tryAcquire(leaseKey, runId, ttl);
    if (!lease) {
      const holder = (await runtime.leases.get(leaseKey))?.holder;
      // A lease shared by several jobs may be held by another job: name the lease, not this job.
      const what =
        leaseKey === `job:${request.jobName}`
          ? `job ${request.jobName}`
          : `job ${request.jobName} cannot start: ${leaseKey}, which it shares with other jobs,`;
      throw new AlreadyRunningError(what, holder);
    }
    try {
      await runs.insertStarted({
        runId,
        jobName: request.jobName,
        jobType: jobType.name,
        startedAt: isoTimestamp(startedAt),
        dryRun,
        leaseKey,
        host: hostname(),
        pid: process.pid,
        params: params as Record<string, unknown>,
      });
    } catch (err) {
      await runtime.leases.release(leaseKey, runId);
      throw err;
    }
  } finally {
    // Held until the run's row exists: from then on the row itself tells a racing delivery.
    if (claim) await runtime.leases.release(claim.key, claim.holder);
  }

  const logger = runtime.logger.child({ job: request.jobName, run_id: runId });
  if (lease.tookOverFrom) await recordDeadHolder(runs, runtime, lease.tookOverFrom, logger);
  const abort = new AbortController();
  let leaseLost = false;
  const onOuterAbort = () => abort.abort(request.signal?.reason);
  request.signal?.addEventListener("abort", onOuterAbort, { once: true });
  const heartbeat = startHeartbeat({
    leases: runtime.leases,
    key: leaseKey,
    holder: runId,
    ttlMs: ttl,
    logger,
    onLost: () => {
      leaseLost = true;
      abort.abort(new LeaseLostError(leaseKey, runId));
    },
  });

  let result: JobResult | undefined;
  let error: string | null = null;
  let configFailure = false;
  const recorder = new RunProgressRecorder(runs, runId, runtime.clock, logger);
  try {
    const ctx = newJobContext(runtime, {
      jobName: request.jobName,
      jobType,
      runId,
      jobStartAt,
      dryRun,
      limit: request.limit,
      lease,
      leaseTtlMs: ttl,
      signal: abort.signal,
      logger,
      progress: request.progress ?? false,
      recorder,
      onLeaseLost: (err) => {
        leaseLost = true;
        abort.abort(err);
      },
    });
    logger.info({ type: jobType.name, dry_run: dryRun, limit: request.limit }, "run started");
    result = await jobType.run(ctx, params);
    if (result.status === "failed") error = result.message ?? "job reported failure";
    configFailure = result.status === "failed" && result.exitCode === ExitCode.usage;
  } catch (err) {
    if (err instanceof LeaseLostError) leaseLost = true;
    configFailure = err instanceof TidemarkError && err.exitCode === ExitCode.usage;
    error = describeError(err);
    const level = request.callerReportsOutcome ? "debug" : "error";
    logger[level]({ err }, leaseLost ? "lease lost; the run committed nothing more" : "run failed");
  } finally {
    heartbeat.stop();
    request.signal?.removeEventListener("abort", onOuterAbort);
    // The last progress lands before the run's end is recorded; none is written after it.
    await recorder.close();
  }

  const outcome = outcomeOf(result, error, leaseLost);
  const status = outcome.status;
  if (leaseLost && error === null) error = `lease lost: ${leaseKey} was taken over`;
  // Stored and shown by `runs show`, the API and the dashboard: never a secret an error quoted,
  // in the run's error or in a target's failure message in its summary.
  if (error !== null) error = redactText(error);
  const summary = redactStrings(outcome.summary) as Record<string, unknown>;
  const report: RunReport = {
    runId,
    jobName: request.jobName,
    jobType: jobType.name,
    status,
    startedAt: isoTimestamp(startedAt),
    finishedAt: isoTimestamp(runtime.clock.now()),
    summary,
    error,
    dryRun,
    ...(status === "failed" && configFailure ? { exitCode: ExitCode.usage } : {}),
  };
  try {
    await runs.finish(runId, { status, finishedAt: report.finishedAt, summary, error });
  } finally {
    await runtime.leases.release(leaseKey, runId);
  }
  logger.info({ status, summary }, "run finished");
  runtime.events?.emitRunEnded(report);
  return report;
}
