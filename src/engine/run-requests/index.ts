// Run requests: the one path by which the CLI (`run --queue`), the scheduler and the HTTP API
// ask a worker to run a stored job, and the `tidemark.run` handler that runs it.
export { findRequestedRun } from "./find-requested-run.ts";
export {
  type QueuedRun,
  queuedRunSchema,
  type RequestedRun,
  requestedRunSchema,
} from "./queued-run.ts";
export {
  type CheckedRunRequest,
  checkRunRequest,
  type RunRequestInput,
  type RunRequestRuntime,
  requestRun,
  sendRunRequest,
} from "./request-run.ts";
export { requestRunFromCli } from "./request-run-from-cli.ts";
export {
  IdempotencyKeyInFlightError,
  IdempotencyKeyReusedError,
  type QueuedOnce,
  requestRunOnce,
} from "./request-run-once.ts";
export {
  API_REQUESTER,
  cliRequester,
  RUN_QUEUE,
  RUN_SEND_DEFAULTS,
  type RunRequestOptions,
  type RunRequestPayload,
  runRequestOptionsSchema,
  runRequestPayload,
  SCHEDULER_REQUESTER,
} from "./run-request.ts";
export { runRequestHandler } from "./run-request-handler.ts";
export { RunRequestRepo } from "./run-request-repo.ts";
