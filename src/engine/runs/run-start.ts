import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "../../infra/logging/logger.ts";
import { isoTimestamp, truncateToSeconds } from "../clock/clock.ts";
import { AlreadyRunningError, DuplicateDeliveryError, UsageError } from "../errors.ts";
import { DEFAULT_LEASE_TTL_MS } from "../leases/lease-heartbeat.ts";
import type { Lease } from "../leases/lease-store.ts";
import type { JobType } from "../registry/pipeline-definition.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { RunRequest } from "./job-runner.ts";
import { newRunId, RUN_ID_PATTERN } from "./run-id.ts";
import type { RunRepo } from "./run-repo.ts";

/** A run that holds its job's lease and has its `running` row. */
export interface StartedRun {
  runId: string;
  leaseKey: string;
  lease: Lease;
  /** The lease's time to live. */
  ttl: number;
  jobStartAt: Date;
  dryRun: boolean;
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
export async function recordDeadHolder(
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

/**
 * Takes the run's id and its job's lease (AlreadyRunningError if held) and records the run as
 * `running`. A requested run id is claimed until the row exists, then released.
 */
export async function startRun(
  runtime: Runtime,
  runs: RunRepo,
  request: RunRequest,
  run: { jobType: JobType; params: unknown; startedAt: Date },
): Promise<StartedRun> {
  const { jobType, params, startedAt } = run;
  const jobStartAt = truncateToSeconds(startedAt);
  const prefix = jobType.runIdPrefix?.(request.jobName, params) ?? request.jobName;
  const ttl = request.leaseTtlMs ?? runtime.config.runs.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const claim = request.exactRunId ? await claimRunId(runtime, request.runId, ttl) : undefined;
  const dryRun = request.dryRun ?? false;
  try {
    const runId = await chooseRunId(runs, request, prefix, jobStartAt, runtime);
    const leaseKey = jobType.leaseKey?.(request.jobName, params) ?? `job:${request.jobName}`;
    const lease = await runtime.leases.tryAcquire(leaseKey, runId, ttl);
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
    return { runId, leaseKey, lease, ttl, jobStartAt, dryRun };
  } finally {
    // Held until the run's row exists: from then on the row itself tells a racing delivery.
    if (claim) await runtime.leases.release(claim.key, claim.holder);
  }
}
