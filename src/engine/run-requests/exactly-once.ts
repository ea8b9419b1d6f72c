import type { Logger } from "../../infra/logging/logger.ts";
import { isoTimestamp } from "../clock/clock.ts";
import type { LeaseStore } from "../leases/lease-store.ts";
import { isGoneHere, parseOwner } from "../leases/process-owner.ts";
import { RunRepo } from "../runs/run-repo.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { RunRequestRepo } from "./run-request-repo.ts";

/** A delivery's fate: its run is new, is to run again under a fresh id, or was handled. */
export type DeliveryVerdict = "first" | "again" | "handled";

/**
 * "handled" when the request's run already exists, so this delivery must not run it again: it ended
 * (a worker ran it but died before acknowledging the message), or it is running under a live
 * lease (a redelivery while it runs). Two exceptions run the job again under a fresh id: a run
 * a worker's stop interrupted, and a run abandoned because its worker died mid-run (once: a
 * request is re-run at most once for that). A worker that died on this machine is known dead at
 * once (its pid is gone), so its run counts as abandoned before its lease expires: a lease TTL
 * longer than the message's hold must not turn the redelivery into a dropped request.
 */
export async function alreadyHandled(
  runtime: Pick<Runtime, "db" | "clock" | "events" | "leases">,
  runId: string,
  logger: Logger,
): Promise<DeliveryVerdict> {
  const runs = new RunRepo(runtime.db, runtime.events);
  let run = await runs.get(runId);
  if (!run) return "first";
  const now = isoTimestamp(runtime.clock.now());
  if (run.status === "running") {
    // A dead worker's run is still `running` until a sweep sees its lease expired.
    await runs.markAbandoned(now);
    if (run.leaseKey) await markIfHolderDied(runs, runtime.leases, run.leaseKey, runId, now);
    run = (await runs.get(runId)) ?? run;
  }
  const requests = new RunRequestRepo(runtime.db);
  if (run.status !== "running" && (await requests.takeInterrupted(runId))) {
    logger.info({ run_id: runId }, "redelivered request of an interrupted run: running it again");
    return "again";
  }
  if (run.status === "abandoned" && (await requests.takeRetry(runId, now))) {
    logger.warn(
      { run_id: runId, error: run.error },
      "redelivered request of an abandoned run (its worker died mid-run): running it again",
    );
    return "again";
  }
  logger.warn(
    { run_id: runId, status: run.status },
    run.status === "running"
      ? "duplicate delivery of a request whose run is running: dropped"
      : "duplicate delivery of a request whose run already ran: acknowledged, not run again",
  );
  return "handled";
}

/** Marks the run abandoned when it still holds its lease but its process is gone from here. */
async function markIfHolderDied(
  runs: RunRepo,
  leases: LeaseStore,
  leaseKey: string,
  runId: string,
  now: string,
): Promise<void> {
  const lease = await leases.get(leaseKey);
  const owner = parseOwner(lease?.owner);
  if (lease?.holder !== runId || !owner || !isGoneHere(owner)) return;
  await runs.markDead(runId, now, `process died: pid ${owner.pid} on ${owner.host} is gone`);
}

/** Notes that a worker's stop interrupted the request's run. */
export async function noteInterrupted(
  runtime: Pick<Runtime, "db" | "clock">,
  runId: string,
): Promise<void> {
  await new RunRequestRepo(runtime.db).markInterrupted(runId, isoTimestamp(runtime.clock.now()));
}
