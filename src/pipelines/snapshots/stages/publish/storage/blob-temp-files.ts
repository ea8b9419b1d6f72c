import { lstat } from "node:fs/promises";
import path from "node:path";
import { type BlobStore, isBlobTempName } from "tidemark/kit";
import { readLocalDir } from "./local-tree.ts";
import type { StorageEntry } from "./snapshot-storage.ts";

// The fs blob driver writes `.<name>.<16 hex>.tmp` (or `.<16 hex>.tmp`) and renames it onto the
// object; its list() hides such names, so a put killed midway leaves one nobody sees.

/**
 * The folder behind a blob store on the fs driver (its `root`), where a killed put leaves its
 * temp file; undefined on S3, where a PUT is atomic and a killed one leaves no object.
 */
export function localRootOf(blobs: BlobStore): string | undefined {
  if (blobs.driver !== "fs") return undefined;
  const root = (blobs as { root?: unknown }).root;
  return typeof root === "string" ? root : undefined;
}

/**
 * Temp files of unfinished puts below `dir` (a folder on disk whose keys start with `keyBase`),
 * as entries keyed like the objects. `descend(key)` decides whether a sub-folder is searched.
 */
export async function* walkBlobTempFiles(
  dir: string,
  keyBase: string,
  descend: (key: string) => boolean,
): AsyncGenerator<StorageEntry> {
  for (const d of await readLocalDir(dir)) {
    const key = `${keyBase}/${d.name}`;
    if (d.isDirectory()) {
      if (descend(key)) yield* walkBlobTempFiles(path.join(dir, d.name), key, descend);
    } else if (d.isFile() && isBlobTempName(d.name)) {
      const s = await lstat(path.join(dir, d.name)).catch(() => undefined);
      if (s) yield { key, name: d.name, size: s.size, mtimeMs: s.mtimeMs };
    }
  }
}
