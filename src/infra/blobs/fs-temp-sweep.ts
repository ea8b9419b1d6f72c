import type { Dirent } from "node:fs";
import { lstat, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { pruneEmptyDirs } from "./fs-dirs.ts";
import { isTempName, tempWriterPid } from "./fs-temp-name.ts";

/** What a sweep of leftover temp files did. */
export interface TempSweepResult {
  /** Keys-like paths (relative, `/`-separated) of the temp files removed. */
  removed: string[];
  /** Temp files left alone: written to recently, or by a process that is still running. */
  kept: number;
}

/** Options of sweepTempFiles. */
export interface TempSweepOptions {
  /** Only temp files not written to for longer than this are candidates (the lease TTL). */
  olderThanMs: number;
  /** Now, in epoch ms (default: the wall clock). */
  now?: number;
  /** Whether a process of this machine is running (default: signal 0). */
  isAlive?: (pid: number) => boolean;
}

/** True when a process with this pid exists on this machine (EPERM: it exists, not ours). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the temp files that puts killed midway (`kill -9`, a power cut) left below `root`: a
 * file is removed when it was last written more than `olderThanMs` ago and the process that
 * wrote it (recorded in its name) is no longer running. A write in progress touches its file as
 * it goes and its process is alive, so it is kept; a name without a recorded writer is judged by
 * its age alone. Folders the removals leave empty are pruned. Objects are never touched: only
 * names the fs driver gives its temp files qualify.
 */
export async function sweepTempFiles(
  root: string,
  options: TempSweepOptions,
): Promise<TempSweepResult> {
  const now = options.now ?? Date.now();
  const isAlive = options.isAlive ?? processIsAlive;
  const result: TempSweepResult = { removed: [], kept: 0 };
  const top = path.resolve(root);
  const visit = async (dir: string, prefix: string): Promise<void> => {
    for (const entry of await entriesOf(dir)) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        await visit(file, `${prefix}${entry.name}/`);
        continue;
      }
      if (!entry.isFile() || !isTempName(entry.name)) continue;
      const stats = await lstat(file).catch(() => undefined);
      if (!stats?.isFile()) continue;
      const pid = tempWriterPid(entry.name);
      const stale = now - stats.mtimeMs > options.olderThanMs;
      if (!stale || (pid !== undefined && isAlive(pid))) {
        result.kept++;
        continue;
      }
      await rm(file, { force: true });
      result.removed.push(`${prefix}${entry.name}`);
      await pruneEmptyDirs(dir, top);
    }
  };
  await visit(top, "");
  return result;
}

/** A folder's entries; none when it does not exist (any more). */
async function entriesOf(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw err;
  }
}
