import type { Logger } from "../../infra/logging/logger.ts";
import { redactStrings, redactText } from "../../infra/logging/redact.ts";
import { isoTimestamp } from "../clock/clock.ts";
import type { RunStatus } from "../engine-tables.ts";
import { describeError, ExitCode, LeaseLostError, TidemarkError } from "../errors.ts";
import { validateParams } from "../jobs/job-validation.ts";
import { startHeartbeat } from "../leases/lease-heartbeat.ts";
import type { RunEndedEvent } from "../notify/run-events.ts";
import type { JobResult, JobType } from "../registry/pipeline-definition.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { newJobContext } from "./new-job-context.ts";
import { RunProgressRecorder } from "./run-progress.ts";
import { RunRepo } from "./run-repo.ts";
import { recordDeadHolder, type StartedRun, startRun } from "./run-start.ts";

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
  const started = await startRun(runtime, runs, request, { jobType, params, startedAt });
  const logger = runtime.logger.child({ job: request.jobName, run_id: started.runId });
  if (started.lease.tookOverFrom) {
    await recordDeadHolder(runs, runtime, started.lease.tookOverFrom, logger);
  }
  const ended = await callJob(runtime, runs, request, { ...started, jobType, params, logger });
  return finishRun(runtime, runs, request, { ...started, jobType, startedAt, logger }, ended);
}

/** What the job's call ended with. */
interface CallEnd {
  result: JobResult | undefined;
  error: string | null;
  leaseLost: boolean;
  configFailure: boolean;
}

/** Calls the job type under its lease's heartbeat; a throw is caught and described. */
async function callJob(
  runtime: Runtime,
  runs: RunRepo,
  request: RunRequest,
  run: StartedRun & { jobType: JobType; params: unknown; logger: Logger },
): Promise<CallEnd> {
  const { runId, leaseKey, lease, ttl, jobStartAt, dryRun, jobType, logger } = run;
  const abort = new AbortController();
  const end: CallEnd = { result: undefined, error: null, leaseLost: false, configFailure: false };
  const onOuterAbort = () => abort.abort(request.signal?.reason);
  request.signal?.addEventListener("abort", onOuterAbort, { once: true });
  const heartbeat = startHeartbeat({
    leases: runtime.leases,
    key: leaseKey,
    holder: runId,
    ttlMs: ttl,
    logger,
    onLost: () => {
      end.leaseLost = true;
      abort.abort(new LeaseLostError(leaseKey, runId));
    },
  });
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
      execute: executeRun,
      onLeaseLost: (err) => {
        end.leaseLost = true;
        abort.abort(err);
      },
    });
    logger.info({ type: jobType.name, dry_run: dryRun, limit: request.limit }, "run started");
    end.result = await jobType.run(ctx, run.params);
    if (end.result.status === "failed") end.error = end.result.message ?? "job reported failure";
    end.configFailure = end.result.status === "failed" && end.result.exitCode === ExitCode.usage;
  } catch (err) {
    if (err instanceof LeaseLostError) end.leaseLost = true;
    end.configFailure = err instanceof TidemarkError && err.exitCode === ExitCode.usage;
    end.error = describeError(err);
    const level = request.callerReportsOutcome ? "debug" : "error";
    const message = end.leaseLost ? "lease lost; the run committed nothing more" : "run failed";
    logger[level]({ err }, message);
  } finally {
    heartbeat.stop();
    request.signal?.removeEventListener("abort", onOuterAbort);
    // The last progress lands before the run's end is recorded; none is written after it.
    await recorder.close();
  }
  return end;
}

/** Records the run's outcome, releases its lease and reports the ended run. */
async function finishRun(
  runtime: Runtime,
  runs: RunRepo,
  request: RunRequest,
  run: StartedRun & { jobType: JobType; startedAt: Date; logger: Logger },
  ended: CallEnd,
): Promise<RunReport> {
  const { runId, leaseKey, dryRun } = run;
  const { leaseLost, configFailure } = ended;
  let error = ended.error;
  const outcome = outcomeOf(ended.result, error, leaseLost);
  const status = outcome.status;
  if (leaseLost && error === null) error = `lease lost: ${leaseKey} was taken over`;
  // Stored and shown by `runs show`, the API and the dashboard: never a secret an error quoted,
  // in the run's error or in a target's failure message in its summary.
  if (error !== null) error = redactText(error);
  const summary = redactStrings(outcome.summary) as Record<string, unknown>;
  const report: RunReport = {
    runId,
    jobName: request.jobName,
    jobType: run.jobType.name,
    status,
    startedAt: isoTimestamp(run.startedAt),
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
  run.logger.info({ status, summary }, "run finished");
  runtime.events?.emitRunEnded(report);
  return report;
}
