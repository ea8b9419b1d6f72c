import type { Logger } from "../../infra/logging/logger.ts";
import { isoTimestamp } from "../context/clock.ts";
import { RunRepo } from "../runs/run-repo.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { RunRequestRepo } from "./run-request-repo.ts";

/**
 * True when the request's run already exists, so this delivery must not run it again: it ended
 * (a worker ran it but died before acknowledging the message), or it is running (a redelivery
 * while it runs, or its process died and the sweep will mark it abandoned). The exception: a
 * run a worker's stop interrupted, which its redelivery runs again under a fresh id.
 */
export async function alreadyHandled(
  runtime: Pick<Runtime, "db">,
  runId: string,
  logger: Logger,
): Promise<boolean> {
  const run = await new RunRepo(runtime.db).get(runId);
  if (!run) return false;
  if (run.status !== "running" && (await new RunRequestRepo(runtime.db).takeInterrupted(runId))) {
    logger.info({ run_id: runId }, "redelivered request of an interrupted run: running it again");
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
