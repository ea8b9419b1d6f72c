import { describe, expect, it } from "vitest";
import { leastBusy } from "../../../src/pipelines/snapshots/stages/parse/byte-csv/csv-worker-pool.ts";
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
