import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import type { FileStamp } from "./fs-put.ts";

/**
 * Remembers the ETag (MD5) of files already hashed, so head() and list() do not re-read every
 * object. Entries are keyed by path and checked against inode + size + mtime (ns): the fs driver
 * only ever replaces a file by renaming a new inode over it, so any change invalidates the entry.
 */
export class EtagCache {
  private readonly entries = new Map<string, { identity: string; etag: string }>();

  constructor(private readonly maxEntries = 10_000) {}

  /** The cached ETag if the file still has the identity it had when hashed. */
  get(file: string, stats: FileStamp): string | undefined {
    const entry = this.entries.get(file);
    return entry && entry.identity === identityOf(stats) ? entry.etag : undefined;
  }

  /** Records an ETag; drops the oldest entry when full (Map keeps insertion order). */
  set(file: string, stats: FileStamp, etag: string): void {
    this.entries.delete(file);
    this.entries.set(file, { identity: identityOf(stats), etag });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  /** Forgets a file (after delete). */
  delete(file: string): void {
    this.entries.delete(file);
  }
}

/** MD5 of an open file read from the start; reads through the handle so it hashes that inode. */
export async function md5OfHandle(handle: FileHandle): Promise<Buffer> {
  const hash = createHash("md5");
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  for (let position = 0; ; ) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return hash.digest();
}

function identityOf(stats: FileStamp): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}`;
}
