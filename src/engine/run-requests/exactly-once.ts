import type { Logger } from "../../infra/logging/logger.ts";
import { isoTimestamp } from "../context/clock.ts";
import { RunRepo } from "../runs/run-repo.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { RunRequestRepo } from "./run-request-repo.ts";

/**
 * True when the request's run already exists, so this delivery must not run it again: it ended
 * (a worker ran it but died before acknowledging the message), or it is running under a live
 * lease (a redelivery while it runs). Two exceptions run the job again under a fresh id: a run
 * a worker's stop interrupted, and a run abandoned because its worker died mid-run (once: a
 * request is re-run at most once for that).
 */
export async function alreadyHandled(
  runtime: Pick<Runtime, "db" | "clock" | "events">,
  runId: string,
  logger: Logger,
): Promise<boolean> {
  const runs = new RunRepo(runtime.db, runtime.events);
  let run = await runs.get(runId);
  if (!run) return false;
  const now = isoTimestamp(runtime.clock.now());
  if (run.status === "running") {
    // A dead worker's run is still `running` until a sweep sees its lease expired.
    await runs.markAbandoned(now);
    run = (await runs.get(runId)) ?? run;
  }
  const requests = new RunRequestRepo(runtime.db);
  if (run.status !== "running" && (await requests.takeInterrupted(runId))) {
    logger.info({ run_id: runId }, "redelivered request of an interrupted run: running it again");
    return false;
  }
  if (run.status === "abandoned" && (await requests.takeRetry(runId, now))) {
    logger.warn(
      { run_id: runId, error: run.error },
      "redelivered request of an abandoned run (its worker died mid-run): running it again",
    );
    return false;
  }
  logger.warn(
    { run_id: runId, status: run.status },
    run.status === "running"
      ? "duplicate delivery of a request whose run is running: dropped"
      : "duplicate delivery of a request whose run already ran: acknowledged, not run again",
  );
  return true;
}

/** Notes that a worker's stop interrupted the request's run. */
export async function noteInterrupted(
  runtime: Pick<Runtime, "db" | "clock">,
  runId: string,
): Promise<void> {
  await new RunRequestRepo(runtime.db).markInterrupted(runId, isoTimestamp(runtime.clock.now()));
}
