import type { Dirent } from "node:fs";
import { lstat, readdir, rmdir } from "node:fs/promises";
import path from "node:path";
import { isStrictlyInside } from "tidemark/kit";

/** Entries of a local folder; none when it does not exist (or is not a folder). */
export async function readLocalDir(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (["ENOENT", "ENOTDIR"].includes((err as NodeJS.ErrnoException).code ?? "")) return [];
    throw err;
  }
}

/** Bytes of the files below a local folder (symlinks not followed); 0 when it is gone. */
export async function localTreeBytes(dir: string): Promise<number> {
  let total = 0;
  for (const d of await readLocalDir(dir)) {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) total += await localTreeBytes(p);
    else
      total += await lstat(p).then(
        (s) => s.size,
        () => 0,
      );
  }
  return total;
}

/** Removes the now-empty folders above file, up to (not including) top. */
export async function pruneEmptyParents(file: string, top: string): Promise<void> {
  for (let dir = path.dirname(file); isStrictlyInside(dir, top); dir = path.dirname(dir)) {
    const removed = await rmdir(dir).then(
      () => true,
      () => false, // not empty (or gone): stop here
    );
    if (!removed) return;
  }
}
