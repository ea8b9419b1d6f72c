import { createHash, hash as oneShotHash } from "node:crypto";
import type { BigIntStats } from "node:fs";
import { close, fstat, fsync, open, rename, write } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { bodyBytes, bodyChunks, isInMemoryBody } from "./blob-body.ts";
import type { BlobBody } from "./blob-store.ts";
import { fsCall } from "./fs-call.ts";
import { fsyncDir, mkdirDurable, pruneEmptyDirs } from "./fs-dirs.ts";
import { tempNameFor } from "./fs-temp-name.ts";

// A concurrent delete may prune the folder between our mkdir and open; that many retries is ample.
const OPEN_TEMP_ATTEMPTS = 5;

/** What identifies one version of a file (the ETag cache's key) and when it was saved. */
export type FileStamp = Pick<BigIntStats, "dev" | "ino" | "size" | "mtimeNs" | "mtimeMs">;

/** What a durable write produced: the file's stamp after the last write, size and MD5. */
export interface WrittenFile {
  stats: FileStamp;
  size: number;
  md5: Buffer;
}

/**
 * Writes `body` to `file` atomically and durably: a temp file in the same folder, fsync, rename,
 * fsync of the folder (and of the parents of any folder created). On failure the temp file is
 * removed and folders left empty are pruned up to `root`.
 * Works on plain file descriptors through the callback API (see fsCall).
 */
export async function writeFileDurable(
  file: string,
  body: BlobBody,
  root: string,
): Promise<WrittenFile> {
  const dir = path.dirname(file);
  const temp = path.join(dir, tempNameFor(path.basename(file)));
  let fd: number | undefined = await openTemp(dir, temp);
  try {
    const { size, md5 } = await writeBody(fd, body);
    await fsCall<void>((cb) => fsync(fd as number, cb));
    // mtime is final after the last write, and rename keeps it, so this is what head() sees.
    const stats = await fsCall<BigIntStats>((cb) =>
      fstat(fd as number, { bigint: true }, cb as (err: Error | null, s: BigIntStats) => void),
    );
    const closing = fd;
    fd = undefined;
    await fsCall<void>((cb) => close(closing, cb));
    await fsCall<void>((cb) => rename(temp, file, cb));
    await fsyncDir(dir);
    return { stats, size, md5 };
  } catch (err) {
    if (fd !== undefined) {
      const closing = fd;
      await fsCall<void>((cb) => close(closing, cb)).catch(() => undefined);
    }
    // The temp file may already be renamed (then rm is a no-op and the object is complete).
    await rm(temp, { force: true }).catch(() => undefined);
    await pruneEmptyDirs(dir, root);
    throw err;
  }
}

/** Writes the body, hashing it as it goes; an in-memory body is hashed in one call. */
async function writeBody(fd: number, body: BlobBody): Promise<{ size: number; md5: Buffer }> {
  if (isInMemoryBody(body)) {
    const bytes = bodyBytes(body);
    await writeAll(fd, bytes);
    return { size: bytes.byteLength, md5: oneShotHash("md5", bytes, "buffer") };
  }
  // A stream: each write is awaited before the next chunk is pulled (the backpressure).
  const md5 = createHash("md5");
  let size = 0;
  for await (const chunk of bodyChunks(body)) {
    md5.update(chunk);
    size += chunk.byteLength;
    await writeAll(fd, chunk);
  }
  return { size, md5: md5.digest() };
}

/** Writes every byte: fs.write may write fewer bytes than asked, so it loops. */
async function writeAll(fd: number, bytes: Uint8Array): Promise<void> {
  for (let offset = 0; offset < bytes.byteLength; ) {
    offset += await fsCall<number>((cb) =>
      write(fd, bytes, offset, bytes.byteLength - offset, null, cb),
    );
  }
}

/** Creates the folder and the temp file; retries if a concurrent delete prunes the folder. */
async function openTemp(dir: string, temp: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    await mkdirDurable(dir);
    try {
      // wx: never reuse (or follow a link at) an existing name
      return await fsCall<number>((cb) => open(temp, "wx", 0o666, cb));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" || attempt >= OPEN_TEMP_ATTEMPTS) {
        throw err;
      }
    }
  }
}
