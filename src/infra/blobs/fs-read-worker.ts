import { readFile } from "node:fs";
import { Worker } from "node:worker_threads";

// The worker reads each file of a batch with readFileSync (a few µs for a small cached file) and
// hands the bytes back without a copy. Inline source: a bundled build has no file to point at.
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { readFileSync } = require("node:fs");
parentPort.on("message", ({ id, files }) => {
  const out = [];
  const transfer = [];
  for (const file of files) {
    try {
      const b = readFileSync(file);
      // A small file's bytes may share a pooled ArrayBuffer: move only its own bytes.
      const own = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
      const ab = own ? b.buffer : b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
      out.push(ab);
      transfer.push(ab);
    } catch (err) {
      out.push({ code: err.code, message: err.message });
    }
  }
  parentPort.postMessage({ id, out }, transfer);
});
`;

// Fewer reads than this asked for together are done with fs.readFile.
const MIN_WORKER_BATCH = 4;

interface Pending {
  file: string;
  resolve: (bytes: Buffer) => void;
  reject: (err: unknown) => void;
}

type Outcome = ArrayBuffer | { code?: string; message: string };

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

  /** The file's bytes; rejects with the fs error (its `code` kept) when it cannot be read. */
  read(file: string): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ file, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        // Once the code asking now has run: reads asked for in one go (a page of raw documents)
        // travel together, and the worker starts on them at once, not after the rest of this
        // turn's promise chains (a commit still running would otherwise leave it idle).
        queueMicrotask(() => this.#flush());
      }
    });
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
    worker.postMessage({ id, files: batch.map((p) => p.file) });
  }

  #workerOrUndefined(): Worker | undefined {
    if (this.#worker !== undefined || this.#failed) return this.#worker;
    try {
      const worker = new Worker(WORKER_SOURCE, { eval: true });
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
      if (r instanceof ArrayBuffer) p.resolve(Buffer.from(r));
      else p.reject(Object.assign(new Error(r?.message ?? "read failed"), { code: r?.code }));
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
  readFile(p.file, (err, bytes) => (err ? p.reject(err) : p.resolve(bytes)));
}
