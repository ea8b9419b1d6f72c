/**
 * The facts file written around the page cache (O_DIRECT, Linux): the CSV workers write it in
 * whole aligned blocks straight from memory they reuse, so the kernel neither copies the
 * hundreds of megabytes into page-cache pages nor has to find those pages first. On the two-core
 * virtual machines this runs on, a buffered write into new page-cache pages cost ~2.4 s of
 * kernel CPU per GB (each page the guest touches for the first time is a fault on the host)
 * against ~0.15 s for a direct write; the disk does the rest while the cores parse.
 *
 * Direct writes need their file offset, length and memory aligned to the block. Batch n's facts
 * take the byte range [at, end) of the file, reserved in batch order (csv-worker.ts). The block
 * holding `at` may also hold the end of batch n-1: that batch left those bytes (fewer than a
 * block) as the "carry" in shared memory, and batch n, in its turn, writes them in front of its
 * own. It leaves its own last partial block as the next carry; the pool writes the final one
 * through an ordinary fd once every batch is written (finishDirectFacts). A file system that
 * refuses direct I/O (tmpfs, some network file systems) gets ordinary writes of the same
 * ranges: the opening fails, or the first direct write does, and the writer falls back.
 */
import { closeSync, constants, openSync, readSync, writeSync } from "node:fs";

/** Alignment of a direct write: offset, length and memory (covers 512- and 4096-byte sectors). */
export const DIRECT_BLOCK = 4096;

/** A worker's aligned staging memory: batches are written through it a mebibyte at a time. */
const STAGING_BYTES = 1 << 20;

/** Bytes of the carry buffer: its length (int32), then up to a block of bytes. */
const CARRY_HEADER = 8;

/** What the workers share about the facts file's direct writes. */
export interface DirectFacts {
  /** The facts file opened for direct writes. */
  fd: number;
  /** Int32 length, then the carried bytes (fewer than DIRECT_BLOCK). */
  carry: SharedArrayBuffer;
}

/**
 * Opens `file` for direct writes, with its current last partial block as the first carry
 * (read through `readFd`); undefined where direct I/O is not available.
 */
export function openDirectFacts(
  file: string,
  readFd: number,
  size: number,
): DirectFacts | undefined {
  const flag = (constants as { O_DIRECT?: number }).O_DIRECT;
  if (flag === undefined) return undefined;
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | flag);
  } catch {
    return undefined;
  }
  const carry = new SharedArrayBuffer(CARRY_HEADER + DIRECT_BLOCK);
  const length = size % DIRECT_BLOCK;
  const bytes = new Uint8Array(carry, CARRY_HEADER, DIRECT_BLOCK);
  let got = 0;
  try {
    while (got < length) {
      const n = readSync(readFd, bytes, got, length - got, size - length + got);
      if (n === 0) throw new Error(`${file}: shorter than its size while reading its last block`);
      got += n;
    }
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  new Int32Array(carry, 0, 1)[0] = length;
  return { fd, carry };
}

/**
 * Writes the last carry (the end of the facts, less than a block) through an ordinary fd at
 * `end` minus its length; call once every batch is written.
 */
export function finishDirectFacts(direct: DirectFacts, fd: number, end: number): void {
  const length = new Int32Array(direct.carry, 0, 1)[0]!;
  const bytes = new Uint8Array(direct.carry, CARRY_HEADER, length);
  let done = 0;
  while (done < length) done += writeSync(fd, bytes, done, length - done, end - length + done);
}

/** A batch's whole blocks, ready to be written outside the turn. */
export interface DirectBlocks {
  /** File offset of the first block. */
  start: number;
  /** The carry in front (already in the staging memory). */
  head: number;
  /** The batch's own bytes that follow it, up to the last whole block. */
  body: Uint8Array;
}

/** One worker's side: its aligned staging memory, reused from batch to batch. */
export class DirectFactsWriter {
  /** WebAssembly memory: its buffer starts on a page boundary, as direct I/O needs. */
  readonly #staging = new Uint8Array(
    new WebAssembly.Memory({ initial: STAGING_BYTES / 65536 }).buffer,
    0,
    STAGING_BYTES,
  );
  readonly #length: Int32Array;
  readonly #carry: Uint8Array;
  #direct = true;

  /** `fallbackFd`: the same file opened for ordinary writes, if direct ones are refused. */
  constructor(
    readonly direct: DirectFacts,
    private readonly fallbackFd: number,
  ) {
    this.#length = new Int32Array(direct.carry, 0, 1);
    this.#carry = new Uint8Array(direct.carry, CARRY_HEADER, DIRECT_BLOCK);
  }

  /**
   * In the batch's turn: its facts take [at, at + bytes.length) of the file. Takes the carry in
   * front of them into the staging memory and leaves the batch's last partial block as the next
   * carry; returns the blocks to write, or undefined when the batch does not complete one.
   */
  reserve(at: number, bytes: Uint8Array): DirectBlocks | undefined {
    const head = this.#length[0]!;
    if (at % DIRECT_BLOCK !== head) {
      throw new Error(`direct facts: ${head} bytes carried to offset ${at}`);
    }
    const start = at - head;
    const end = at + bytes.length;
    const full = end - (end % DIRECT_BLOCK);
    if (full <= start) {
      this.#carry.set(bytes, head);
      this.#length[0] = head + bytes.length;
      return undefined;
    }
    this.#staging.set(this.#carry.subarray(0, head), 0);
    const body = bytes.subarray(0, full - at);
    const tail = bytes.subarray(full - at);
    this.#carry.set(tail, 0);
    this.#length[0] = tail.length;
    return { start, head, body };
  }

  /**
   * Outside the turn: writes the blocks through the staging memory, a mebibyte at a time (the
   * carry is already at its start). Ordinary writes once a direct one failed.
   */
  write(blocks: DirectBlocks): void {
    const total = blocks.head + blocks.body.length;
    let from = blocks.head;
    let taken = 0;
    for (let done = 0; done < total; ) {
      const n = Math.min(STAGING_BYTES, total - done);
      this.#staging.set(blocks.body.subarray(taken, taken + n - from), from);
      taken += n - from;
      from = 0;
      this.#writeStaging(n, blocks.start + done);
      done += n;
    }
  }

  /** Writes the staging memory's first n bytes (whole blocks) at `position`. */
  #writeStaging(n: number, position: number): void {
    let done = 0;
    while (done < n) {
      if (this.#direct) {
        try {
          done += writeSync(this.direct.fd, this.#staging, done, n - done, position + done);
          continue;
        } catch {
          // EINVAL: the file system or the device wants another alignment; write as usual.
          this.#direct = false;
        }
      }
      done += writeSync(this.fallbackFd, this.#staging, done, n - done, position + done);
    }
  }
}
