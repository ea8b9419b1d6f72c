// The queue's public API. Pipeline definitions import defineQueueHandler from
// ./queue-handler-definition.ts directly to stay light; everything else can come from here.
// Run requests (`tidemark.run`) live in ../run-requests.
export { assertQueueName } from "./driver-queue.ts";
export type { EmbeddedQueueOptions } from "./embedded/embedded-driver.ts";
export { type OpenQueueOptions, openQueue, type QueueRuntime } from "./open-queue.ts";
export { pgBossOf } from "./pg-boss/pg-boss-of.ts";
export type {
  MessageFinish,
  MessageState,
  Queue,
  QueueHandler,
  QueueMessage,
  QueueMessageInfo,
  QueueStats,
  SendOptions,
  WorkOptions,
} from "./queue.ts";
export { PermanentQueueError, QueueStoppedError, VisibilityLostError } from "./queue-errors.ts";
export {
  defineQueueHandler,
  type QueueHandlerContext,
  type QueueHandlerDefinition,
  sendBatchTo,
  sendTo,
} from "./queue-handler-definition.ts";
export { DEFAULT_SEND_OPTIONS, DEFAULT_STOP_GRACE_MS } from "./queue-options.ts";
// Workers over the queue (engine and pipeline handlers) live in ../workers.
