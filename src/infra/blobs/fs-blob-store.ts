import { type FileHandle, open, stat, unlink } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { isInMemoryBody } from "./blob-body.ts";
import { md5Etag } from "./blob-etag.ts";
import { isValidBlobKey, validateBlobKey, validateBlobPrefix } from "./blob-key.ts";
import {
  type BlobBody,
  type BlobInfo,
  BlobNotFoundError,
  type BlobStore,
  InvalidBlobKeyError,
  type TextAndDigest,
} from "./blob-store.ts";
import { fsyncDir, pruneEmptyDirs } from "./fs-dirs.ts";
import { EtagCache, md5OfHandle } from "./fs-etag-cache.ts";
import { type FileStamp, writeFileDurable } from "./fs-put.ts";
import { isTempName } from "./fs-temp-name.ts";
import { walkKeys } from "./fs-walk.ts";
import { FsWorker, isAbsentError } from "./fs-worker.ts";

// Whole-object reads, stats and puts of in-memory bodies go through one worker thread: a small
// file costs the main thread a few µs instead of the thread-pool round trips of each fs call,
// which counts when a first load writes, or a re-apply reads, 100,000 objects.
const sharedWorker = new FsWorker();

/**
 * Blob store on the local file system: the object for key `a/b.json` is the plain file
 * `<root>/a/b.json`. Writes are atomic (temp file + fsync + rename + fsync of the folder).
 * `contentType` is accepted and ignored: there is nowhere to keep it without sidecar files.
 */
export class FsBlobStore implements BlobStore {
  readonly driver = "fs" as const;
  /** Absolute, normalised root folder; created on first put. */
  readonly root: string;
  private readonly etags = new EtagCache();

  // The root with one trailing separator (the file system root already ends with one).
  readonly #rootPrefix: string;

  readonly #worker: FsWorker;

  /** `worker`: the thread doing its reads, stats and puts (default: one shared by every store). */
  constructor(root: string, options: { worker?: FsWorker } = {}) {
    this.root = path.resolve(root);
    this.#worker = options.worker ?? sharedWorker;
    this.#rootPrefix = this.root.endsWith(path.sep) ? this.root : this.root + path.sep;
  }

  /** Absolute file path for key; throws InvalidBlobKeyError if the key is unsafe. */
  pathFor(key: string): string {
    validateBlobKey(key);
    // A valid key has no empty, `.` or `..` segment, so joining it to the root by hand gives a
    // normalised path below the root (path.resolve + path.relative cost ~6 µs a key, which
    // counts when a re-apply reads 100,000 objects).
    const file = this.#rootPrefix + (path.sep === "/" ? key : key.split("/").join(path.sep));
    // Second line of defence: validation should make this impossible, but a path bug must
    // never turn into a write outside root. The path starts with the root by construction, so
    // only a segment that normalising would remove (`..`, `.`, empty) could lead out of it.
    if (path.normalize(file) !== file) {
      throw new InvalidBlobKeyError(key, "resolves outside the store root");
    }
    if (isTempName(path.basename(file))) {
      // list() hides such names as in-flight writes, so an object by that name would vanish.
      throw new InvalidBlobKeyError(key, "name is reserved for the fs driver's temp files");
    }
    return file;
  }

  async put(key: string, body: BlobBody, _options?: { contentType?: string }): Promise<BlobInfo> {
    const file = this.pathFor(key);
    const { stats, size, md5 } = isInMemoryBody(body)
      ? await this.#worker.put(file, this.root, body)
      : await writeFileDurable(file, body, this.root);
    const etag = md5Etag(md5);
    this.etags.set(file, stats, etag);
    return { key, etag, savedAt: savedAtOf(stats), size };
  }

  get(key: string): Promise<Buffer> {
    return this.#readWhole(key, (file) => this.#worker.read(file));
  }

  getTextAndDigest(key: string): Promise<TextAndDigest> {
    return this.#readWhole(key, (file) => this.#worker.readText(file));
  }

  /** A whole-object read through the worker; a missing file is BlobNotFoundError. */
  async #readWhole<T>(key: string, read: (file: string) => Promise<T>): Promise<T> {
    const file = this.pathFor(key);
    try {
      return await read(file);
    } catch (err) {
      throw absentToNotFound(err, key);
    }
  }

  async getStream(key: string): Promise<Readable> {
    const file = this.pathFor(key);
    let handle: FileHandle;
    try {
      handle = await open(file, "r");
    } catch (err) {
      throw absentToNotFound(err, key);
    }
    try {
      // Opening a folder succeeds on Linux; only reading fails. Check now to report "not found".
      if (!(await handle.stat()).isFile()) throw new BlobNotFoundError(key);
    } catch (err) {
      await handle.close();
      throw err;
    }
    return handle.createReadStream(); // closes the handle when the stream ends or is destroyed
  }

  async head(key: string): Promise<BlobInfo | undefined> {
    return this.infoAt(this.pathFor(key), key);
  }

  async exists(key: string): Promise<boolean> {
    const file = this.pathFor(key);
    try {
      return (await stat(file)).isFile();
    } catch (err) {
      if (isAbsentError(err)) return false;
      throw err;
    }
  }

  list(prefix = ""): AsyncIterable<BlobInfo> {
    // Validate now, not on first iteration, so a bad prefix fails where list() is called.
    validateBlobPrefix(prefix);
    return this.listValid(prefix);
  }

  async delete(key: string): Promise<void> {
    const file = this.pathFor(key);
    try {
      await unlink(file);
    } catch (err) {
      // macOS reports unlink() of a folder as EPERM; a folder is "no object" like EISDIR.
      const code = (err as NodeJS.ErrnoException).code;
      if (isAbsentError(err) || (code === "EPERM" && (await isDirectory(file)))) return;
      throw err;
    }
    this.etags.delete(file);
    const dir = path.dirname(file);
    await fsyncDir(dir); // so the delete survives a crash, like put
    await pruneEmptyDirs(dir, this.root);
  }

  private async *listValid(prefix: string): AsyncGenerator<BlobInfo> {
    const start =
      prefix === "" ? this.root : path.join(this.root, ...prefix.slice(0, -1).split("/"));
    for await (const key of walkKeys(start, prefix)) {
      // Files put there by hand may have names get() would refuse; do not list what cannot be read.
      if (!isValidBlobKey(key)) continue;
      const info = await this.infoAt(path.join(this.root, ...key.split("/")), key);
      if (info) yield info; // undefined: deleted while we were walking
    }
  }

  /** Metadata of the file, hashing it only when the cache has no ETag for this exact version. */
  private async infoAt(file: string, key: string): Promise<BlobInfo | undefined> {
    // Through the worker: a raw put asks first whether its key exists, and a missing file costs
    // fs.stat an error object with its stack on this thread.
    const stats = await this.#worker.stat(file);
    if (stats === undefined) return undefined;
    const cached = this.etags.get(file, stats);
    if (cached !== undefined) {
      return { key, etag: cached, savedAt: savedAtOf(stats), size: Number(stats.size) };
    }

    let handle: FileHandle;
    try {
      handle = await open(file, "r");
    } catch (err) {
      if (isAbsentError(err)) return undefined;
      throw err;
    }
    try {
      // Stat and hash through the same handle so identity and ETag describe the same inode even
      // if a put renames a new version over the path meanwhile.
      const current = await handle.stat({ bigint: true });
      if (!current.isFile()) return undefined;
      const etag = md5Etag(await md5OfHandle(handle));
      this.etags.set(file, current, etag);
      return { key, etag, savedAt: savedAtOf(current), size: Number(current.size) };
    } finally {
      await handle.close();
    }
  }
}

function savedAtOf(stats: FileStamp): string {
  return new Date(Number(stats.mtimeMs)).toISOString();
}

function absentToNotFound(err: unknown, key: string): unknown {
  return isAbsentError(err) ? new BlobNotFoundError(key) : err;
}

async function isDirectory(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isDirectory();
  } catch {
    return false;
  }
}
