/** Queue workers: every handler of this build (the engine's run requests, the pipelines'). */
export {
  collectQueueHandlers,
  type StartWorkersOptions,
  startQueueWorkers,
} from "./queue-workers.ts";
