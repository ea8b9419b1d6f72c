import { createHash, randomBytes } from "node:crypto";
import { type FileHandle, open, readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { bodyChunks } from "./blob-body.ts";
import type { BlobBody } from "./blob-store.ts";

/** A streamed body captured whole: in memory when small, else in a private temp file. */
export type SpooledBody =
  | { kind: "memory"; bytes: Buffer; size: number; md5: Buffer }
  | { kind: "file"; path: string; size: number; md5: Buffer };

/**
 * Drains body, hashing it, into memory until it exceeds memoryLimit bytes and from then on into
 * a temp file in dir. We need the whole body before sending because a single PutObject wants a
 * known Content-Length and we send Content-MD5 (S3 then rejects corrupted uploads). A source that
 * fails midway therefore fails here, before anything reaches the bucket. Call discardSpool after.
 */
export async function spoolBody(
  body: BlobBody,
  dir: string,
  memoryLimit: number,
): Promise<SpooledBody> {
  const hash = createHash("md5");
  let size = 0;
  let chunks: Uint8Array[] = [];
  let file: { path: string; handle: FileHandle } | undefined;
  try {
    for await (const chunk of bodyChunks(body)) {
      hash.update(chunk);
      size += chunk.byteLength;
      if (file === undefined) {
        chunks.push(chunk);
        if (size <= memoryLimit) continue;
        await sweepDeadSpools(dir);
        const tempPath = path.join(
          dir,
          `tidemark-s3-${process.pid}-${randomBytes(8).toString("hex")}.tmp`,
        );
        // wx + 0600: a fresh file nobody else can read (the temp folder is usually shared).
        file = { path: tempPath, handle: await open(tempPath, "wx", 0o600) };
        const pending = chunks;
        chunks = [];
        for (const part of pending) await writeAll(file.handle, part);
      } else {
        await writeAll(file.handle, chunk);
      }
    }
    if (file === undefined) {
      return { kind: "memory", bytes: Buffer.concat(chunks), size, md5: hash.digest() };
    }
    await file.handle.close();
    return { kind: "file", path: file.path, size, md5: hash.digest() };
  } catch (err) {
    if (file) {
      await file.handle.close().catch(() => undefined);
      await rm(file.path, { force: true }).catch(() => undefined);
    }
    throw err;
  }
}

/** Removes the temp file of a spooled body, if it has one. */
export async function discardSpool(spool: SpooledBody): Promise<void> {
  if (spool.kind === "file") await rm(spool.path, { force: true });
}

/** `tidemark-s3-<pid>-<hex>.tmp`: the pid says whose upload a spool file belongs to. */
const SPOOL_NAME = /^tidemark-s3-(\d+)-[0-9a-f]{16}\.tmp$/;
/** A spool file this old whose process is gone is a killed upload's. */
const DEAD_SPOOL_AGE_MS = 10 * 60_000;
/** Folders swept by this process (once each). */
const swept = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes, once per folder and process, spool files that a killed upload left: their process is
 * gone from this machine and they are older than a few minutes (a process in another container
 * sharing the folder keeps a recent file). Spool files can be large (a whole object).
 */
export async function sweepDeadSpools(dir: string, now = Date.now()): Promise<string[]> {
  if (swept.has(dir)) return [];
  swept.add(dir);
  const removed: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const m = SPOOL_NAME.exec(name);
    if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
    const file = path.join(dir, name);
    const info = await stat(file).catch(() => undefined);
    if (!info || now - info.mtimeMs < DEAD_SPOOL_AGE_MS) continue;
    await rm(file, { force: true }).catch(() => undefined);
    removed.push(file);
  }
  return removed;
}

async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  for (let offset = 0; offset < chunk.byteLength; ) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.byteLength - offset);
    offset += bytesWritten;
  }
}
