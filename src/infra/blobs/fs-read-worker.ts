import { readFile } from "node:fs";
import { Worker } from "node:worker_threads";
import { type TextAndDigest, textAndDigestOf } from "./blob-store.ts";

// The worker reads each file of a batch with readFileSync (a few µs for a file in the page cache)
// and hands the bytes back without a copy, or, for a text read, its SHA-256 and UTF-8 text
// (hashing and decoding there keeps a re-apply's main thread free for its database work).
// Files not in the page cache (a re-apply of documents written long ago) wait on the disk, and
// read one at a time they take ~200 µs each: when a batch's reads average more than
// SLOW_READ_MS, the next batches are read with fs.readFile, 16 at a time on the thread pool,
// until reads are fast again (measured: 9,700 against 5,000 items/s for a cold re-apply).
// Inline source: a bundled build has no file to point at.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { readFile, readFileSync } = require("node:fs");
const { hash } = require("node:crypto");
const SLOW_MS = workerData.slowReadMs;
// Reads in flight when reading from the disk: four per thread-pool thread keep it busy; all of a
// batch at once were no faster and held more memory.
const IN_FLIGHT = 16;
let fromDisk = false;
function outcome(b, text, transfer) {
  if (text) return { text: b.toString("utf8"), sha256: hash("sha256", b, "hex") };
  // A small file's bytes may share a pooled ArrayBuffer: move only its own bytes.
  const own = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
  const ab = own ? b.buffer : b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  transfer.push(ab);
  return ab;
}
const failure = (err) => ({ code: err.code, message: err.message });
parentPort.on("message", ({ id, files, text }) => {
  const out = new Array(files.length);
  const transfer = [];
  const started = performance.now();
  const finish = () => {
    fromDisk = (performance.now() - started) / files.length > SLOW_MS;
    parentPort.postMessage({ id, out }, transfer);
  };
  if (!fromDisk) {
    for (let i = 0; i < files.length; i++) {
      try {
        out[i] = outcome(readFileSync(files[i]), text[i], transfer);
      } catch (err) {
        out[i] = failure(err);
      }
    }
    return finish();
  }
  let left = files.length;
  let next = 0;
  const start = () => {
    const i = next++;
    if (i >= files.length) return;
    readFile(files[i], (err, b) => {
      try {
        out[i] = err ? failure(err) : outcome(b, text[i], transfer);
      } catch (e) {
        out[i] = failure(e);
      }
      if (--left === 0) finish();
      else start();
    });
  };
  for (let k = 0; k < IN_FLIGHT; k++) start();
});
`;

// Fewer reads than this asked for together are done with fs.readFile.
const MIN_WORKER_BATCH = 4;
// A batch whose reads average more than this came from the disk (a cached file takes ~10 µs).
const SLOW_READ_MS = 0.05;

type Pending =
  | { file: string; text: false; resolve: (bytes: Buffer) => void; reject: (err: unknown) => void }
  | {
      file: string;
      text: true;
      resolve: (read: TextAndDigest) => void;
      reject: (err: unknown) => void;
    };

type Outcome = ArrayBuffer | TextAndDigest | { code?: string; message: string };

/**
 * Reads whole files on a worker thread, the reads asked for in one synchronous stretch of code sent
 * as one batch. Many small files (a re-apply's raw documents) cost the main thread a fraction of
 * fs.readFile's four thread-pool round trips each, and the reads never block it. Errors keep
 * their `code` (ENOENT…). If the worker cannot run, files are read with fs.readFile instead.
 */
export class BatchFileReader {
  #worker: Worker | undefined;
  #failed = false;
  #queue: Pending[] = [];
  #scheduled = false;
  readonly #inFlight = new Map<number, Pending[]>();
  #nextId = 0;

  /** `slowReadMs`: the average read time above which a batch counts as read from the disk. */
  constructor(private readonly options: { slowReadMs?: number } = {}) {}

  /** The file's bytes; rejects with the fs error (its `code` kept) when it cannot be read. */
  read(file: string): Promise<Buffer> {
    return new Promise((resolve, reject) => this.#ask({ file, text: false, resolve, reject }));
  }

  /** The file's UTF-8 text and the SHA-256 of its bytes, both computed off the main thread. */
  readText(file: string): Promise<TextAndDigest> {
    return new Promise((resolve, reject) => this.#ask({ file, text: true, resolve, reject }));
  }

  #ask(p: Pending): void {
    this.#queue.push(p);
    if (!this.#scheduled) {
      this.#scheduled = true;
      // Once the code asking now has run: reads asked for in one go (a page of raw documents)
      // travel together, and the worker starts on them at once, not after the rest of this
      // turn's promise chains (a commit still running would otherwise leave it idle).
      queueMicrotask(() => this.#flush());
    }
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#queue;
    this.#queue = [];
    // A read or two (a command showing one object) is not worth starting a thread for.
    const worker = batch.length >= MIN_WORKER_BATCH ? this.#workerOrUndefined() : undefined;
    if (worker === undefined) {
      for (const p of batch) readWithFs(p);
      return;
    }
    const id = this.#nextId++;
    this.#inFlight.set(id, batch);
    worker.ref(); // a caller awaiting these reads keeps the process alive
    worker.postMessage({ id, files: batch.map((p) => p.file), text: batch.map((p) => p.text) });
  }

  #workerOrUndefined(): Worker | undefined {
    if (this.#worker !== undefined || this.#failed) return this.#worker;
    try {
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { slowReadMs: this.options.slowReadMs ?? SLOW_READ_MS },
      });
      worker.on("message", (m: { id: number; out: Outcome[] }) => this.#settle(m.id, m.out));
      worker.on("error", () => this.#giveUp());
      worker.on("exit", () => this.#giveUp());
      worker.unref();
      this.#worker = worker;
    } catch {
      this.#failed = true;
    }
    return this.#worker;
  }

  #settle(id: number, out: Outcome[]): void {
    const batch = this.#inFlight.get(id) ?? [];
    this.#inFlight.delete(id);
    batch.forEach((p, i) => {
      const r = out[i];
      if (r instanceof ArrayBuffer && !p.text) p.resolve(Buffer.from(r));
      else if (r !== undefined && "sha256" in r && p.text) p.resolve(r);
      else {
        const e =
          r !== undefined && "message" in r ? r : { message: "read failed", code: undefined };
        p.reject(Object.assign(new Error(e.message), { code: e.code }));
      }
    });
    if (this.#inFlight.size === 0) this.#worker?.unref();
  }

  /** The worker died: its batches are read with fs.readFile, and so is every later read. */
  #giveUp(): void {
    this.#failed = true;
    this.#worker = undefined;
    for (const batch of this.#inFlight.values()) for (const p of batch) readWithFs(p);
    this.#inFlight.clear();
  }
}

function readWithFs(p: Pending): void {
  readFile(p.file, (err, bytes) => {
    if (err) p.reject(err);
    else if (p.text) p.resolve(textAndDigestOf(bytes));
    else p.resolve(bytes);
  });
}
