import type { Runtime } from "../runtime/runtime.ts";
import type { QueuedRun } from "./queued-run.ts";
import { requestRun } from "./request-run.ts";
import { cliRequester } from "./run-request.ts";

/** `tidemark run <job> --queue`: opens the configured queue, requests the run, closes it. */
export async function requestRunFromCli(
  runtime: Runtime,
  request: { job: string; dryRun?: boolean; limit?: number },
): Promise<QueuedRun> {
  const { openQueue } = await import("../queue/open-queue.ts");
  const queue = await openQueue(runtime);
  try {
    return await requestRun(runtime, queue, { ...request, requestedBy: cliRequester() });
  } finally {
    await queue.close();
  }
}
