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
import { closeSync, constants, write as fsWrite, openSync, readSync, writeSync } from "node:fs";
import { writeAllSync } from "../../publish/artifacts/line-sink.ts";
import { newWasmMemory } from "./wasm-memory.ts";

/** Alignment of a direct write: offset, length and memory (covers 512- and 4096-byte sectors). */
export const DIRECT_BLOCK = 4096;

/** A batch written synchronously goes through aligned memory a mebibyte at a time. */
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
  writeAllSync(fd, new Uint8Array(direct.carry, CARRY_HEADER, length), length, end - length);
}

/** A batch's whole blocks, ready to be written outside the turn. */
export interface DirectBlocks {
  /** File offset of the first block. */
  start: number;
  /** The carry in front (a copy: the next batch replaces the shared one). */
  head: Uint8Array;
  /** The batch's own bytes that follow it, up to the last whole block. */
  body: Uint8Array;
}

/** Aligned memory: a WebAssembly memory's buffer starts on a page boundary. */
class AlignedBuffer {
  readonly #memory = newWasmMemory(1);

  /** A view of its first n bytes, grown (by pages) when short; never while a write reads it. */
  view(n: number): Uint8Array {
    const have = this.#memory.buffer.byteLength;
    if (have < n) this.#memory.grow(Math.ceil((n - have) / 65536));
    return new Uint8Array(this.#memory.buffer, 0, n);
  }
}

/**
 * Background writes a worker may have under way: two, because a write's completion is only
 * seen when the worker's event loop runs, i.e. after it has parsed its next batch. With one,
 * every other batch found it still "busy" (finished, unseen) and was written synchronously:
 * half the facts, ~120 ms per worker of the 1M bench file spent waiting on the disk.
 */
const BACKGROUND_WRITES = 2;

/**
 * One worker's side. A batch's blocks are copied into an aligned buffer and written in the
 * background (the I/O thread pool), so the disk works while the worker parses its next batch;
 * at most BACKGROUND_WRITES at a time per worker, which leaves the pool's other threads to the
 * reads of the input. A batch that finds them all under way, or any batch once direct writes
 * were refused, is written synchronously, a mebibyte at a time, through one more buffer.
 */
export class DirectFactsWriter {
  readonly #background = Array.from({ length: BACKGROUND_WRITES }, () => new AlignedBuffer());
  readonly #busy = this.#background.map(() => false);
  readonly #inline = new AlignedBuffer();
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
   * front of them and leaves the batch's last partial block as the next carry; returns the
   * blocks to write, or undefined when the batch does not complete one.
   */
  reserve(at: number, bytes: Uint8Array): DirectBlocks | undefined {
    const carried = this.#length[0]!;
    if (at % DIRECT_BLOCK !== carried) {
      throw new Error(`direct facts: ${carried} bytes carried to offset ${at}`);
    }
    const start = at - carried;
    const end = at + bytes.length;
    const full = end - (end % DIRECT_BLOCK);
    if (full <= start) {
      this.#carry.set(bytes, carried);
      this.#length[0] = carried + bytes.length;
      return undefined;
    }
    const head = this.#carry.slice(0, carried);
    const body = bytes.subarray(0, full - at);
    const tail = bytes.subarray(full - at);
    this.#carry.set(tail, 0);
    this.#length[0] = tail.length;
    return { start, head, body };
  }

  /**
   * Outside the turn: writes the blocks; `written` is called once they are on disk (or with
   * the error), later when written in the background, before returning otherwise. `body` may
   * be reused as soon as this returns.
   */
  write(blocks: DirectBlocks, written: (err?: Error) => void): void {
    const total = blocks.head.length + blocks.body.length;
    const free = this.#busy.indexOf(false);
    if (free < 0 || !this.#direct) {
      try {
        this.#writeInline(blocks, total);
      } catch (err) {
        written(err as Error);
        return;
      }
      written();
      return;
    }
    const view = this.#background[free]!.view(total);
    view.set(blocks.head, 0);
    view.set(blocks.body, blocks.head.length);
    this.#busy[free] = true;
    const finish = (err?: Error) => {
      this.#busy[free] = false;
      written(err);
    };
    fsWrite(this.direct.fd, view, 0, total, blocks.start, (err, n) => {
      if (!err && n === total) return finish();
      // Refused (EINVAL: the file system wants another alignment) or short: the rest as usual.
      if (err) this.#direct = false;
      const done = err ? 0 : n;
      try {
        writeAllSync(this.fallbackFd, view.subarray(done), total - done, blocks.start + done);
      } catch (failed) {
        return finish(failed as Error);
      }
      finish();
    });
  }

  /** The blocks written now, through the inline buffer, a mebibyte at a time. */
  #writeInline(blocks: DirectBlocks, total: number): void {
    const staging = this.#inline.view(Math.min(STAGING_BYTES, total));
    staging.set(blocks.head, 0);
    let from = blocks.head.length;
    let taken = 0;
    for (let done = 0; done < total; ) {
      const n = Math.min(STAGING_BYTES, total - done);
      staging.set(blocks.body.subarray(taken, taken + n - from), from);
      taken += n - from;
      from = 0;
      this.#writeStaging(staging, n, blocks.start + done);
      done += n;
    }
  }

  /** Writes the staging memory's first n bytes (whole blocks) at `position`. */
  #writeStaging(staging: Uint8Array, n: number, position: number): void {
    let done = 0;
    while (done < n) {
      if (!this.#direct) {
        writeAllSync(this.fallbackFd, staging.subarray(done), n - done, position + done);
        return;
      }
      try {
        done += writeSync(this.direct.fd, staging, done, n - done, position + done);
      } catch {
        // EINVAL: the file system or the device wants another alignment; write as usual.
        this.#direct = false;
      }
    }
  }
}
