/**
 * Runs the key-diff groups on worker threads: this thread reads each group's previous buckets
 * (storage may be remote) and hands them over, at most two groups in flight per worker; the
 * results come back by group index.
 */
import type { Worker } from "node:worker_threads";
import { startWorkerThread } from "tidemark/kit";
import type { BucketGroup, GroupLayout, GroupReader, GroupResult } from "./key-diff-group.ts";
import type { GroupReply, GroupTask } from "./key-diff-worker.ts";

/** Little is allocated per line: a small young generation keeps the threads' memory down. */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 16 };

/** Sends groups in order to the least busy worker; resolves with every group's result. */
export async function runGroupsOnWorkers(
  layout: GroupLayout,
  groups: readonly BucketGroup[],
  read: GroupReader,
  threads: number,
): Promise<GroupResult[]> {
  const workers: Worker[] = [];
  const busy: number[] = [];
  const results: GroupResult[] = new Array(groups.length);
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const fail = (err: Error) => {
    failure ??= err;
    wakeUp();
  };
  const next = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
    });
  try {
    for (let i = 0; i < threads; i++) {
      const w = startWorkerThread(import.meta.url, "key-diff-worker", WORKER_LIMITS);
      const slot = i;
      w.on("message", (m: GroupReply) => {
        busy[slot]!--;
        if (m.type === "error") fail(new Error(`key index check: ${m.message}`));
        else results[m.index] = m.result;
        wakeUp();
      });
      w.on("error", fail);
      w.on("exit", (code) => {
        if (code !== 0) fail(new Error(`key-diff worker exited with code ${code}`));
      });
      workers.push(w);
      busy.push(0);
    }
    for (let index = 0; index < groups.length; index++) {
      const previous = await read(groups[index]!);
      for (;;) {
        if (failure) throw failure;
        const slot = busy.indexOf(Math.min(...busy));
        if (busy[slot]! < 2) {
          const task: GroupTask = { type: "group", index, layout, group: groups[index]!, previous };
          busy[slot]!++;
          workers[slot]!.postMessage(task, ownBuffers(previous));
          break;
        }
        await next();
      }
    }
    while (busy.some((n) => n > 0)) {
      if (failure) throw failure;
      await next();
    }
    if (failure) throw failure;
    return results;
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** Buffers that are wholly the bucket's (a pooled small Buffer's memory is copied instead). */
function ownBuffers(previous: ReadonlyArray<Uint8Array | undefined> | undefined): ArrayBuffer[] {
  const own = (b: Uint8Array | undefined): b is Uint8Array =>
    b !== undefined && b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
  return [...new Set((previous ?? []).filter(own).map((b) => b.buffer as ArrayBuffer))];
}
