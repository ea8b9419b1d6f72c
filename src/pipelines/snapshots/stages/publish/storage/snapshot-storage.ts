import type { Readable } from "node:stream";

/** A file (object) in the tree. */
export interface StorageEntry {
  /** Key relative to the root, e.g. `inbox/brinex/prices.csv`. */
  key: string;
  /** Last path segment. */
  name: string;
  size: number;
  /** Last modification (fs mtime, object store save time). */
  mtimeMs: number;
}

/** A run's local scratch folder (s3 storage). */
export interface WorkDirEntry {
  /** The folder's name: the id of the run that made it. */
  name: string;
  /** Absolute path. */
  path: string;
  /** Bytes of the files in it. */
  bytes: number;
  mtimeMs: number;
}

/** publication.json: written into the state folder before it is published; never changed. */
export interface StatePublication {
  run_id: string;
  supplier: string;
  input_filename: string;
  input_sha256: string;
  fact_count: number;
  /** True when facts carry category_key (the key index is then per category). */
  multi_category: boolean;
  /** Partitions of the key index under keys/ (a power of two). */
  key_buckets: number;
  created_at: string;
}

/** What state/current/<supplier> resolves to. */
export interface StatePointer extends StatePublication {
  /** When current was switched to this state. */
  published_at: string;
  /** state_store/<supplier>/<run_id> */
  state_path: string;
}

/** A key that should exist does not. */
export class StorageNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`not found: ${key}`);
    this.name = "StorageNotFoundError";
  }
}

/**
 * The snapshots directory tree (docs/pipelines/snapshots.md, Layout) on one backend. `fs` publishes state by symlink swap, `s3` (the configured blob
 * store) by an atomic pointer object; everything else is plain file/object handling. Keys are
 * `/`-separated and relative to the root; callers validate supplier names first.
 */
export interface SnapshotStorage {
  readonly kind: "fs" | "s3";
  /** Where the root is, for messages. */
  readonly location: string;
  /** Files directly inside dir (not in sub-folders), unordered. */
  listFiles(dir: string): Promise<StorageEntry[]>;
  /** Names of the sub-folders directly inside dir. */
  listDirs(dir: string): Promise<string[]>;
  /** Every file below dir, at any depth. */
  walkFiles(dir: string): AsyncIterable<StorageEntry>;
  stat(key: string): Promise<StorageEntry | undefined>;
  /** Throws StorageNotFoundError when absent. */
  openRead(key: string): Promise<Readable>;
  /**
   * Optional allocation-free reading: every chunk is a view on one reused buffer, valid until
   * the next chunk is requested. Throws StorageNotFoundError when absent.
   */
  openChunks?(key: string): Promise<{ chunks: AsyncIterable<Uint8Array>; close(): void }>;
  readText(key: string): Promise<string | undefined>;
  /** The file's bytes (no text decoding); undefined when absent. */
  readBytes(key: string): Promise<Uint8Array | undefined>;
  /**
   * Optional: the path of a key's file on this machine (fs), for a reader that reads it into
   * memory of its own. Absent when files are elsewhere (s3).
   */
  localFile?(key: string): string;
  /** Atomic create-or-replace. */
  writeText(key: string, text: string): Promise<void>;
  /** Moves a file into toDir keeping its name (`.<n>` appended on collision); returns the new key. */
  move(from: string, toDir: string): Promise<string>;
  remove(key: string): Promise<void>;
  /** Removes a folder and everything below it (read-only state folders included). */
  removeDir(dir: string): Promise<void>;
  /** A local folder where the run writes its artifacts (fs: runs/<run_id> itself). */
  runWorkDir(runId: string): Promise<string>;
  /** Makes work-dir files part of runs/<run_id>/ (fs: already there; s3: uploads them). */
  saveRunFiles(runId: string, names: readonly string[]): Promise<void>;
  /**
   * Optional: starts writing a finished work-dir file to disk in the background, so that the
   * fsync sealing its state later finds nothing left to write. Never rejects (the seal reports
   * real errors).
   */
  flushAhead?(file: string): Promise<void>;
  /**
   * True when a state is sealed with fsync from the local work files (fs, fsync on): their
   * writers may sync them while they write, so that the seal finds little left to write.
   */
  readonly syncsWorkFiles?: boolean;
  /** Drops the local work folder of an s3 run (fs: nothing, the folder is the run's). */
  discardWorkDir(runId: string): Promise<void>;
  /** s3: every folder in the local scratch folder, sized (fs: none, a run works in runs/). */
  listWorkDirs(): Promise<WorkDirEntry[]>;
  /**
   * Files below dir that a killed write left unfinished: the fs blob driver's temp files, which
   * listings hide. None on S3 (a PUT is atomic) nor with fs storage. `descend(key)` says whether
   * a sub-folder is searched (default: all).
   */
  walkPartialWrites(dir: string, descend?: (key: string) => boolean): AsyncIterable<StorageEntry>;
  /** Deletes a file walkPartialWrites found. */
  removePartialWrite(key: string): Promise<void>;
  /**
   * Writes state_store/<supplier>/<run_id>/ from a local folder, once: refuses if it exists,
   * makes it read-only (fs) and durable before returning.
   */
  createState(supplier: string, runId: string, localDir: string): Promise<void>;
  /** The published state of a supplier, if any. */
  readCurrent(supplier: string): Promise<StatePointer | undefined>;
  /** Atomically points state/current/<supplier> at an existing state. */
  switchCurrent(supplier: string, pointer: StatePointer): Promise<void>;
  /** Suppliers that have a current state. */
  listCurrent(): Promise<string[]>;
}
