/** Queue workers: every handler of this build (the engine's run requests, the pipelines'). */

export {
  type DeadLetterSnapshot,
  type DrainWaitOptions,
  deadLettersSince,
  type NewDeadLetters,
  snapshotDeadLetters,
  waitUntilDrained,
} from "./drain.ts";
export {
  checkQueueNames,
  collectQueueHandlers,
  queueHandlerContext,
  type StartWorkersOptions,
  startQueueWorkers,
} from "./queue-workers.ts";
