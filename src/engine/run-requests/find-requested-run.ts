import type { Queue } from "../queue/queue.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { RequestedRun } from "./queued-run.ts";
import { RunRequestRepo } from "./run-request-repo.ts";

/**
 * A requested run that has no `tm_runs` row yet: `queued` while its message waits or is
 * being picked up, `dead` when the queue gave up on it. Undefined when unknown or done.
 * Reads only.
 */
export async function findRequestedRun(
  runtime: Pick<Runtime, "db">,
  queue: Queue | undefined,
  runId: string,
): Promise<RequestedRun | undefined> {
  const request = await new RunRequestRepo(runtime.db).get(runId);
  if (!request || !queue) return undefined;
  const message = await queue.getMessage(request.queue, request.messageId);
  if (!message || message.state === "completed") return undefined;
  return {
    runId,
    jobName: request.jobName,
    status: message.state === "dead" ? "dead" : "queued",
    messageId: request.messageId,
    requestedAt: request.requestedAt,
    dryRun: request.dryRun,
    limit: request.limit,
    attempts: message.attempts,
    error: message.lastError,
  };
}
