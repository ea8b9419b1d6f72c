/**
 * Worker threads for the key-diff groups: this thread reads each group's previous buckets
 * (storage may be remote) and hands them over, or hands over their local files' paths, at most
 * two groups in flight per worker; the results come back by group index.
 */
import type { Worker } from "node:worker_threads";
import type { WarmThreads } from "tidemark/kit";
import { Waiter } from "../../parse/byte-csv/waiter.ts";
import type {
  BucketGroup,
  GroupLayout,
  GroupReader,
  GroupResult,
  PreviousBucket,
} from "./key-diff-group.ts";
import type { GroupReply, GroupTask } from "./key-diff-task.ts";

/**
 * A pool of key-diff worker threads, taken from `from`: threads of a module that answers
 * GroupTask messages (the CSV workers do, and a large CSV's parse leaves two idle there). The
 * pool stops them: close() it when the run is done with it.
 */
export class KeyDiffPool {
  readonly #workers: Worker[] = [];
  readonly #busy: number[] = [];
  #results: GroupResult[] = [];
  #failure: Error | undefined;
  #closed = false;
  readonly #waiter = new Waiter();

  constructor(threads: number, from: WarmThreads) {
    for (let slot = 0; slot < threads; slot++) {
      const w = from.take();
      w.on("message", (m: GroupReply) => {
        this.#busy[slot]!--;
        if (m.type === "error") this.#fail(new Error(`key index check: ${m.message}`));
        else this.#results[m.index] = m.result;
        this.#wakeUp();
      });
      w.on("error", (err) => this.#fail(err));
      w.on("exit", (code) => {
        if (code !== 0 && !this.#closed)
          this.#fail(new Error(`key-diff worker exited with code ${code}`));
      });
      this.#workers.push(w);
      this.#busy.push(0);
    }
  }

  get threads(): number {
    return this.#workers.length;
  }

  /** Runs the groups, reading each one's previous buckets just before it is sent. */
  async run(
    layout: GroupLayout,
    groups: readonly BucketGroup[],
    read: GroupReader,
  ): Promise<GroupResult[]> {
    this.#results = new Array(groups.length);
    for (let index = 0; index < groups.length; index++) {
      const previous = await read(groups[index]!);
      const group = groups[index]!;
      for (;;) {
        this.#check();
        const slot = this.#busy.indexOf(Math.min(...this.#busy));
        if (this.#busy[slot]! < 2) {
          const task: GroupTask = { type: "group", index, layout, group, previous };
          this.#busy[slot]!++;
          this.#workers[slot]!.postMessage(task, ownBuffers(previous));
          break;
        }
        await this.#next();
      }
    }
    while (this.#busy.some((n) => n > 0)) await this.#next();
    this.#check();
    return this.#results;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#workers.map((w) => w.terminate()));
  }

  #fail(err: Error): void {
    this.#failure ??= err;
    this.#wakeUp();
  }

  #check(): void {
    if (this.#failure) throw this.#failure;
  }

  #wakeUp(): void {
    this.#waiter.wake();
  }

  #next(): Promise<void> {
    this.#check();
    return this.#waiter.wait();
  }
}

/** Buffers that are wholly the bucket's (a pooled small Buffer's memory is copied instead). */
function ownBuffers(previous: readonly PreviousBucket[] | undefined): ArrayBuffer[] {
  const own = (b: PreviousBucket): b is Uint8Array =>
    b instanceof Uint8Array && b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
  return [...new Set((previous ?? []).filter(own).map((b) => b.buffer as ArrayBuffer))];
}
