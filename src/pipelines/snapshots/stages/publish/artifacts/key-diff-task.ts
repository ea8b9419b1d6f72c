/**
 * A key-index bucket group as a task for a worker thread: the group, with the previous
 * buckets' local files or their bytes (transferred), goes out; its result, or why it failed,
 * comes back. The CSV worker threads answer these once the parse is done with them (see
 * key-diff-pool.ts).
 */
import { warmUpKeyCheck } from "./key-check-warm-up.ts";
import {
  type BucketGroup,
  type GroupLayout,
  type GroupResult,
  type PreviousBucket,
  runGroup,
} from "./key-diff-group.ts";

/** One group to run. */
export interface GroupTask {
  type: "group";
  index: number;
  layout: GroupLayout;
  group: BucketGroup;
  previous: PreviousBucket[] | undefined;
}

/** A group's result, or why it failed. */
export type GroupReply =
  | { type: "done"; index: number; result: GroupResult }
  | { type: "error"; index: number; message: string };

/**
 * Runs a task on this thread and says how it went (never throws). The thread's first task
 * warms the check's code up first (see key-check-warm-up.ts).
 */
export function answerGroup(task: GroupTask): GroupReply {
  warmUpKeyCheck();
  try {
    return {
      type: "done",
      index: task.index,
      result: runGroup(task.layout, task.group, task.previous),
    };
  } catch (err) {
    return { type: "error", index: task.index, message: (err as Error).message };
  }
}
