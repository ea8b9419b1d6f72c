import { closeSync, constants, fsyncSync, openSync, writeSync } from "node:fs";

const BUFFER_BYTES = 1 << 20;

/** Node's internal, undocumented-but-stable fast UTF-8 encoder on Buffer. */
interface Utf8Writable {
  utf8Write(text: string, offset: number): number;
}

/**
 * Writes all of buf[0, length) to fd (write(2) may write less than asked), at the file's
 * position (appending) or, given one, at `position` (pwrite).
 */
export function writeAllSync(
  fd: number,
  buf: Uint8Array,
  length = buf.length,
  position?: number,
): void {
  let offset = 0;
  while (offset < length) {
    offset +=
      position === undefined
        ? writeSync(fd, buf, offset, length - offset)
        : writeSync(fd, buf, offset, length - offset, position + offset);
  }
}

/**
 * Created empty and always appended to (O_APPEND): worker threads may meanwhile fill reserved
 * ranges by pwrite through fds of their own, and this thread's next write still lands at the
 * end of the file, not at a stale file position.
 */
export const TRUNCATE_AND_APPEND =
  constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_APPEND;

/**
 * Encodes lines straight into a reusable byte buffer. Cheaper than growing a string: a long
 * concatenated string survives young-generation GC and costs a flattening pass when encoded.
 */
export class ByteBatch {
  readonly #buf: Buffer;
  #used = 0;

  constructor(
    bytes: number,
    private readonly flushTo: (buf: Buffer, length: number) => void,
  ) {
    this.#buf = Buffer.allocUnsafe(bytes);
  }

  /** Appends text (UTF-8), flushing first if it might not fit. */
  add(text: string): void {
    // A UTF-16 code unit never needs more than 3 UTF-8 bytes.
    if (this.#used + text.length * 3 > this.#buf.length) {
      this.flush();
      if (text.length * 3 > this.#buf.length) {
        const big = Buffer.from(text, "utf8");
        this.flushTo(big, big.length);
        return;
      }
    }
    // utf8Write skips Buffer#write's argument juggling (measurably faster per line).
    this.#used += (this.#buf as unknown as Utf8Writable).utf8Write(text, this.#used);
  }

  /** Hands the buffered bytes to flushTo. */
  flush(): void {
    if (this.#used === 0) return;
    this.flushTo(this.#buf, this.#used);
    this.#used = 0;
  }
}

/**
 * An append-only text file written in ~1 MB batches. Synchronous on purpose: the ingestion is
 * CPU-bound, each batch takes about a millisecond, and it keeps the hot loop free of awaits.
 */
export class LineSink {
  /** The open file (an XLSX worker appends to it directly). */
  readonly fd: number;
  /** The file's path, when this sink opened it (CSV workers open it again to pwrite). */
  readonly path: string | undefined;
  readonly #batch: ByteBatch;
  #closed = false;
  /** Lines written so far. */
  lines = 0;

  readonly #owned: boolean;

  /** Opens file (truncating, or appending), or writes to an fd opened elsewhere (not closed here). */
  constructor(file: string | number, append = false) {
    const fd = typeof file === "number" ? file : openSync(file, append ? "a" : TRUNCATE_AND_APPEND);
    this.#owned = typeof file !== "number";
    this.path = typeof file === "number" ? undefined : file;
    this.fd = fd;
    this.#batch = new ByteBatch(BUFFER_BYTES, (buf, length) => writeAllSync(fd, buf, length));
  }

  /** Appends one line, which must end with "\n". */
  writeLine(line: string): void {
    this.#batch.add(line);
    this.lines++;
  }

  /** Appends already encoded lines (a worker's output). */
  writeBytes(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.#batch.flush();
    writeAllSync(this.fd, bytes);
  }

  /** Writes out what is buffered. */
  flush(): void {
    this.#batch.flush();
  }

  /** Flushes, optionally fsyncs, and closes (idempotent). */
  close(sync = false): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.flush();
      if (sync) fsyncSync(this.fd);
    } finally {
      if (this.#owned) closeSync(this.fd);
    }
  }
}
