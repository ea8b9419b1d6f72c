/**
 * Memory a thread reuses from one key bucket to the next during the key check: the bucket's
 * bytes, its line table, its lines' positions, its identity table and its line states (a
 * previous state's bucket, read from a local file, takes a second one: bytes and positions). Taken
 * fresh for every bucket, these were ~7 MB per bucket (hundreds of MB over the 10M bench file's
 * 128 buckets) of short-lived buffers that piled up before the garbage collector freed them,
 * and that the OS handed out as fresh pages each time. One bucket at a time: what it hands out
 * stays valid until it is asked for the same kind again.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/** A buffer of at least n bytes (grown by half again when short). */
function atLeast(buf: Buffer, n: number): Buffer {
  return buf.length >= n ? buf : Buffer.allocUnsafeSlow(Math.max(n, Math.ceil(buf.length * 1.5)));
}

/**
 * Reads the whole of a file into the buffer `into(size)` gives; returns the bytes read (a view
 * on that buffer), or undefined when the file does not exist and `optional` is set.
 */
export type ReadWhole = (
  file: string,
  optional: boolean,
  into: (size: number) => Buffer,
) => Buffer | undefined;

/** ReadWhole from the disk. */
const readFromDisk: ReadWhole = (file, optional, into) => {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (err) {
    if (optional && (err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  try {
    const size = fstatSync(fd).size;
    const buf = into(size);
    let n = 0;
    while (n < size) {
      const got = readSync(fd, buf, n, size - n, n);
      if (got === 0) break;
      n += got;
    }
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
};

export class BucketScratch {
  readonly #readWhole: ReadWhole;
  #text: Buffer = Buffer.alloc(0);
  #table: Buffer = Buffer.alloc(0);
  #ints: Int32Array[] = [];
  #slots = new Int32Array(0);
  #filter = new Int32Array(0);
  #state = new Uint8Array(0);

  /** `readWhole`: where the files come from (the disk, unless the key check's warm-up). */
  constructor(readWhole: ReadWhole = readFromDisk) {
    this.#readWhole = readWhole;
  }

  /** The whole of a bucket file (an error if it is missing). */
  text(file: string): Buffer {
    return this.#read(file, false, false)!;
  }

  /** The whole of a bucket file; undefined if there is none (an empty bucket). */
  optionalText(file: string): Buffer | undefined {
    return this.#read(file, false, true);
  }

  /** The whole of a line table file; undefined if there is none. */
  table(file: string): Buffer | undefined {
    return this.#read(file, true, true);
  }

  #read(file: string, table: boolean, optional: boolean): Buffer | undefined {
    return this.#readWhole(file, optional, (size) => {
      const buf = atLeast(table ? this.#table : this.#text, size);
      if (table) this.#table = buf;
      else this.#text = buf;
      return buf;
    });
  }

  /** Four int32 arrays of `count` elements (a line's start, identity start and end, hash). */
  lineArrays(count: number): [Int32Array, Int32Array, Int32Array, Int32Array] {
    if ((this.#ints[0]?.length ?? -1) < count) {
      const size = Math.max(count, Math.ceil((this.#ints[0]?.length ?? 0) * 1.5));
      this.#ints = [0, 1, 2, 3].map(() => new Int32Array(size));
    }
    const [a, b, c, d] = this.#ints.map((x) => x.subarray(0, count));
    return [a!, b!, c!, d!];
  }

  /** `size` zeroed int32 slots (an identity table's). */
  slots(size: number): Int32Array {
    if (this.#slots.length < size) this.#slots = new Int32Array(size);
    return this.#slots.subarray(0, size).fill(0);
  }

  /** `size` zeroed int32 words (an identity table's miss filter). */
  filterWords(size: number): Int32Array {
    if (this.#filter.length < size) this.#filter = new Int32Array(size);
    return this.#filter.subarray(0, size).fill(0);
  }

  /** `count` zeroed bytes (the lines' states). */
  states(count: number): Uint8Array {
    if (this.#state.length < count) this.#state = new Uint8Array(Math.ceil(count * 1.5));
    return this.#state.subarray(0, count).fill(0);
  }
}
