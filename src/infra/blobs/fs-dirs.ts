import { close, fsync, mkdir, open } from "node:fs";
import { rmdir } from "node:fs/promises";
import path from "node:path";
import { fsCall } from "./fs-call.ts";

/** Per folder: the fsync running now, and the one queued to start after it. */
const dirSyncs = new Map<string, { running: Promise<void>; next: Promise<void> | undefined }>();

/**
 * Flushes a directory's entries (new, renamed or removed names) to disk. Windows cannot open a
 * directory for fsync and NTFS journals metadata itself, so it is skipped there.
 *
 * Concurrent calls for one folder are grouped (a group commit): a call resolves only after an
 * fsync that started after the call was made, so its change is on disk, but the callers that
 * arrive while one fsync runs share the single next one instead of queueing one each.
 */
export function fsyncDir(dir: string): Promise<void> {
  if (process.platform === "win32") return Promise.resolve();
  const state = dirSyncs.get(dir);
  if (state === undefined) {
    const running = syncOnce(dir).finally(() => settle(dir, running));
    dirSyncs.set(dir, { running, next: undefined });
    return running;
  }
  // One is running (it may have started before our change): join the one after it.
  state.next ??= state.running
    .catch(() => undefined)
    .then(() => {
      const next = state.next as Promise<void>;
      state.running = next;
      state.next = undefined;
      return syncOnce(dir);
    })
    .finally(() => settle(dir, state.running));
  return state.next;
}

/** Forgets the folder's entry once its last fsync is over. */
function settle(dir: string, finished: Promise<void>): void {
  const state = dirSyncs.get(dir);
  if (state !== undefined && state.running === finished && state.next === undefined) {
    dirSyncs.delete(dir);
  }
}

async function syncOnce(dir: string): Promise<void> {
  const fd = await fsCall<number>((cb) => open(dir, "r", cb));
  try {
    await fsCall<void>((cb) => fsync(fd, cb));
  } finally {
    await fsCall<void>((cb) => close(fd, cb));
  }
}

/**
 * Creates dir and any missing parents, then fsyncs the parent of every folder it created, so the
 * new folders survive a crash together with the file about to be renamed into dir.
 */
export async function mkdirDurable(dir: string): Promise<void> {
  const first = await fsCall<string | undefined>((cb) => mkdir(dir, { recursive: true }, cb));
  if (first === undefined) return;
  const stop = path.dirname(first);
  for (let current = path.dirname(dir); ; current = path.dirname(current)) {
    await fsyncDir(current);
    // The second check only guards against a loop if `first` were somehow not an ancestor.
    if (current === stop || current === path.dirname(current)) break;
  }
}

/**
 * Removes dir and then its parents while they are empty, never touching root itself or anything
 * outside it. Best effort: stops quietly at the first folder that is not empty or cannot go.
 */
export async function pruneEmptyDirs(dir: string, root: string): Promise<void> {
  for (let current = dir; isStrictlyInside(current, root); current = path.dirname(current)) {
    try {
      await rmdir(current);
    } catch (err) {
      // Already gone (a concurrent prune): carry on upwards. Anything else: leave it.
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") return;
    }
  }
}

/** True when child is below parent (not equal to it); both must be absolute and normalised. */
export function isStrictlyInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  // `..foo` is a legal folder name, so only a whole `..` segment means "outside".
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}
