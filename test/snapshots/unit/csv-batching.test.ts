import { describe, expect, it } from "vitest";
import { leastBusy } from "../../../src/pipelines/snapshots/stages/parse/byte-csv/csv-worker-pool.ts";
import { OutputSync } from "../../../src/pipelines/snapshots/stages/parse/byte-csv/output-sync.ts";
import {
  TAIL_BYTES,
  TAIL_SLICE_BYTES,
  tailSlices,
} from "../../../src/pipelines/snapshots/stages/parse/byte-csv/tail-slices.ts";

describe("how a large CSV is handed to the worker threads", () => {
  it("chunks in the file's last megabytes are fed in smaller slices, covering every byte once", () => {
    const chunk = Uint8Array.from({ length: (1 << 20) + 7 }, (_, i) => i % 251);
    const size = 64 << 20;
    // Far from the end, or with the size unknown: the chunk as it is.
    expect(tailSlices(chunk, 0, size)).toEqual([chunk]);
    expect(tailSlices(chunk, size - TAIL_BYTES - 1, size)).toEqual([chunk]);
    expect(tailSlices(chunk, size - chunk.length, undefined)).toEqual([chunk]);
    // Near the end: slices, none larger than the slice size, the same bytes in order.
    const slices = tailSlices(chunk, size - TAIL_BYTES, size);
    expect(slices.length).toBe(5);
    expect(slices.every((s) => s.length <= TAIL_SLICE_BYTES)).toBe(true);
    expect(Buffer.concat(slices)).toEqual(Buffer.from(chunk));
    // A chunk no larger than a slice stays whole.
    const small = chunk.subarray(0, TAIL_SLICE_BYTES);
    expect(tailSlices(small, size - small.length, size)).toEqual([small]);
  });

  it("a batch goes to the worker with the fewest batches in flight, ties taken in turn", () => {
    expect(leastBusy([2, 0], 0)).toBe(1);
    expect(leastBusy([0, 2], 1)).toBe(0);
    expect(leastBusy([1, 1], 0)).toBe(0);
    expect(leastBusy([1, 1], 1)).toBe(1);
    expect(leastBusy([1, 0, 0], 4)).toBe(1);
    expect(leastBusy([1, 0, 0], 5)).toBe(2);
    expect(leastBusy([3], 9)).toBe(0);
  });
});

describe("the CSV workers' outputs synced to disk as they grow", () => {
  it("a round every `every` bytes of facts, one file after the other, never two at once", async () => {
    const ends = new Float64Array(4);
    const calls: number[] = [];
    const pending: Array<() => void> = [];
    const sync = new OutputSync([10, 11, 12, 13], ends, { every: 100, files: 3 }, ((
      fd: number,
      done: (err: NodeJS.ErrnoException | null) => void,
    ) => {
      calls.push(fd);
      pending.push(() => done(fd === 11 ? Object.assign(new Error("EIO"), { code: "EIO" }) : null));
    }) as never);
    const finish = async () => {
      while (pending.length > 0) {
        pending.shift()!();
        await new Promise((r) => setImmediate(r));
      }
    };
    ends[0] = 99;
    sync.poke();
    expect(calls).toEqual([]);
    ends[0] = 100;
    sync.poke();
    ends[0] = 500;
    sync.poke(); // a round is under way: no second one
    expect(calls).toEqual([10]);
    const settled = sync.settle();
    await finish();
    // The first three files, in order; a failed sync (fd 11) does not stop the round.
    expect(calls).toEqual([10, 11, 12]);
    await settled;
    sync.poke(); // 400 bytes since the last round
    expect(calls).toEqual([10, 11, 12, 10]);
    await finish();
    await sync.settle();
    sync.poke(); // nothing new
    expect(calls).toEqual([10, 11, 12, 10, 11, 12]);
  });
});
