/**
 * Worker thread of the key-index dedupe and diff: runs the bucket groups it is sent (each
 * with the previous buckets' bytes, transferred) and posts back each group's result.
 */
import { parentPort } from "node:worker_threads";
import {
  type BucketGroup,
  type GroupLayout,
  type GroupResult,
  runGroup,
} from "./key-diff-group.ts";

/** One group to run. */
export interface GroupTask {
  type: "group";
  index: number;
  layout: GroupLayout;
  group: BucketGroup;
  previous: Array<Uint8Array | undefined> | undefined;
}

/** A group's result, or why it failed. */
export type GroupReply =
  | { type: "done"; index: number; result: GroupResult }
  | { type: "error"; index: number; message: string };

parentPort?.on("message", (task: GroupTask) => {
  let reply: GroupReply;
  try {
    reply = {
      type: "done",
      index: task.index,
      result: runGroup(task.layout, task.group, task.previous),
    };
  } catch (err) {
    reply = { type: "error", index: task.index, message: (err as Error).message };
  }
  parentPort!.postMessage(reply);
});
