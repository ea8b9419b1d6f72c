import { readFile, stat } from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { type TextAndDigest, textAndDigestOf } from "./blob-store.ts";
import { type FileStamp, type WrittenFile, writeFileDurable } from "./fs-put.ts";
import { tempNameFor } from "./fs-temp-name.ts";
import { FS_WORKER_SOURCE } from "./fs-worker-source.ts";

const encoder = new TextEncoder();
// Until the worker runs, fewer calls than this asked for together are made on this thread: a
// read or a put or two (a command showing one object, a marker) is not worth starting a thread.
const MIN_WORKER_BATCH = 4;
// The thread keeps nothing: a small young generation (V8's default grows to 48 MB) is enough
// for a batch in flight, and anything it promotes dies with the next batch.
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 4 };
// A batch whose reads average more than this came from the disk (a cached file takes ~10 µs).
const SLOW_READ_MS = 0.05;

/** What a stat found: the file's stamp, or undefined when there is no file (or a folder). */
export type StatResult = FileStamp | undefined;

type Failure = { code?: string; message: string };
type Outcome = ArrayBuffer | TextAndDigest | Failure | FileStamp | WorkerWritten;
type WorkerWritten = FileStamp & { written: number; md5: string };

interface Call {
  /** The worker's answer to this call. */
  settle(out: Outcome): void;
  /** The same call on this thread, when the worker cannot run or died. */
  fallback(): void;
}

type Kind = "read" | "stat";

/**
 * The fs blob store's worker thread: whole-file reads and stats asked for in one synchronous
 * stretch of code go to it as one batch, and durable puts of in-memory bodies are written there.
 * A small file's read, a stat or a put cost the main thread a few µs instead of the thread-pool
 * round trips of fs calls made here (four for a read, ~11 for a put), and never block it. Errors
 * keep their `code` (ENOENT…). If the worker cannot run, the same calls are made on this thread.
 */
export class FsWorker {
  #worker: Worker | undefined;
  #failed = false;
  #queues: Record<Kind, Array<{ file: string; text: boolean; call: Call }>> = {
    read: [],
    stat: [],
  };
  #puts: Array<{
    file: string;
    root: string;
    data: string | Uint8Array;
    call: Call;
  }> = [];
  #scheduled = false;
  readonly #inFlight = new Map<number, Call[]>();
  #nextId = 0;

  /**
   * `slowReadMs`: the average read time above which a batch counts as read from the disk;
   * `minBatch`: the calls asked for together that start the thread (1: every call goes to it).
   */
  constructor(private readonly options: { slowReadMs?: number; minBatch?: number } = {}) {}

  /** True once the worker thread runs (false before, and after it failed). */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  /** The file's bytes; rejects with the fs error (its `code` kept) when it cannot be read. */
  read(file: string): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const fallback = () => readFile(file, (err, b) => (err ? reject(err) : resolve(b)));
      this.#ask("read", file, false, {
        fallback,
        settle: (r) => (r instanceof ArrayBuffer ? resolve(Buffer.from(r)) : reject(errorOf(r))),
      });
    });
  }

  /** The file's UTF-8 text and the SHA-256 of its bytes, both computed off the main thread. */
  readText(file: string): Promise<TextAndDigest> {
    return new Promise((resolve, reject) => {
      const fallback = () =>
        readFile(file, (err, b) => (err ? reject(err) : resolve(textAndDigestOf(b))));
      this.#ask("read", file, true, {
        fallback,
        settle: (r) => (isTextAndDigest(r) ? resolve(r) : reject(errorOf(r))),
      });
    });
  }

  /** The stamp of the file, or undefined when nothing (or a folder) is there. */
  stat(file: string): Promise<StatResult> {
    return new Promise((resolve, reject) => {
      const fallback = () =>
        stat(file, { bigint: true }, (err, st) => {
          if (err === null) resolve(st.isFile() ? st : undefined);
          else if (isAbsentError(err)) resolve(undefined);
          else reject(err);
        });
      const settle = (r: Outcome) => {
        if (isStamp(r)) resolve(r);
        else if (isAbsentError(r)) resolve(undefined);
        else reject(errorOf(r));
      };
      this.#ask("stat", file, false, { fallback, settle });
    });
  }

  /**
   * Writes `data` to `file` atomically and durably, as writeFileDurable does (which is what runs
   * when there is no worker); folders left empty by a failure are pruned up to `root`.
   */
  put(file: string, root: string, data: string | Uint8Array): Promise<WrittenFile> {
    return new Promise((resolve, reject) => {
      // A fresh temp name each time: a put the worker died in may have left its temp file.
      const fallback = () => writeFileDurable(file, data, root).then(resolve, reject);
      const settle = (r: Outcome) => {
        if (!isWritten(r)) return reject(errorOf(r));
        resolve({ stats: r, size: r.written, md5: Buffer.from(r.md5, "hex") });
      };
      this.#puts.push({ file, root, data, call: { fallback, settle } });
      this.#schedule();
    });
  }

  #ask(kind: Kind, file: string, text: boolean, call: Call): void {
    this.#queues[kind].push({ file, text, call });
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    // Once the code asking now has run: calls made in one go (a page of raw documents) travel
    // together, and the worker starts on them at once, not after the rest of this turn's promise
    // chains (a commit still running would otherwise leave it idle).
    queueMicrotask(() => this.#flush());
  }

  #flush(): void {
    this.#scheduled = false;
    const { read, stat } = this.#queues;
    const puts = this.#puts;
    this.#queues = { read: [], stat: [] };
    this.#puts = [];
    const count = read.length + stat.length + puts.length;
    const worker =
      this.#worker ??
      (count >= (this.options.minBatch ?? MIN_WORKER_BATCH)
        ? this.#workerOrUndefined()
        : undefined);
    if (worker === undefined) {
      for (const q of [read, stat, puts]) for (const { call } of q) call.fallback();
      return;
    }
    worker.ref(); // a caller awaiting these calls keeps the process alive
    if (read.length > 0) {
      const files = read.map((r) => r.file);
      this.#post(worker, { kind: "read", files, text: read.map((r) => r.text) }, read);
    }
    if (stat.length > 0) this.#post(worker, { kind: "stat", files: stat.map((s) => s.file) }, stat);
    for (const { file, root, data, call } of puts) {
      const temp = path.join(path.dirname(file), tempNameFor(path.basename(file)));
      // A string's UTF-8 bytes move to the thread without a copy. The caller's bytes are copied
      // (moving them would empty the caller's buffer), only their own: a view on part of a
      // larger buffer (Buffer's pool) would be cloned whole.
      const bytes =
        typeof data === "string" ? encoder.encode(data) : Uint8Array.prototype.slice.call(data);
      this.#post(
        worker,
        { kind: "put", file, temp, root, data: bytes },
        [{ call }],
        [bytes.buffer],
      );
    }
  }

  #post(
    worker: Worker,
    message: Record<string, unknown>,
    calls: Array<{ call: Call }>,
    transfer: ArrayBuffer[] = [],
  ): void {
    const id = this.#nextId++;
    this.#inFlight.set(
      id,
      calls.map((c) => c.call),
    );
    worker.postMessage({ id, ...message }, transfer);
  }

  #workerOrUndefined(): Worker | undefined {
    if (this.#worker !== undefined || this.#failed) return this.#worker;
    try {
      const worker = new Worker(FS_WORKER_SOURCE, {
        eval: true,
        workerData: { slowReadMs: this.options.slowReadMs ?? SLOW_READ_MS },
        resourceLimits: WORKER_LIMITS,
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
    const calls = this.#inFlight.get(id) ?? [];
    this.#inFlight.delete(id);
    calls.forEach((call, i) => {
      call.settle(out[i] ?? { message: "fs worker gave no answer" });
    });
    if (this.#inFlight.size === 0) this.#worker?.unref();
  }

  /** The worker died: its calls are made again on this thread, and so is every later call. */
  #giveUp(): void {
    // A put made again is safe: its bytes go through a new temp file renamed onto the key.
    this.#failed = true;
    this.#worker = undefined;
    for (const calls of this.#inFlight.values()) for (const call of calls) call.fallback();
    this.#inFlight.clear();
  }
}

// Errors meaning "no file here": missing, a parent is a file, or the path is a folder.
const ABSENT = new Set(["ENOENT", "ENOTDIR", "EISDIR"]);

/** True for an fs error meaning "no file here" (ENOENT, ENOTDIR, EISDIR). */
export function isAbsentError(err: unknown): boolean {
  return ABSENT.has((err as NodeJS.ErrnoException | undefined)?.code ?? "");
}

function errorOf(r: Outcome): Error {
  const e = r !== undefined && "message" in r ? (r as Failure) : { message: "fs call failed" };
  return Object.assign(new Error(e.message), { code: e.code });
}

function isTextAndDigest(r: Outcome): r is TextAndDigest {
  return typeof r === "object" && "sha256" in r;
}

function isStamp(r: Outcome): r is FileStamp {
  return typeof r === "object" && "mtimeNs" in r && !("written" in r);
}

function isWritten(r: Outcome): r is WorkerWritten {
  return typeof r === "object" && "written" in r;
}
