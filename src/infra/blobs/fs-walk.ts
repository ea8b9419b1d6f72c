import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { compareBlobKeys } from "./blob-key.ts";
import { isTempName } from "./fs-temp-name.ts";

/**
 * Yields the keys of all regular files below dir (keys are keyPrefix + relative path with `/`),
 * in UTF-8 byte order, without collecting the whole tree first. Skips temp files and symlinks
 * (a link could point outside the store's root). Folders that vanish mid-walk are skipped.
 */
export async function* walkKeys(dir: string, keyPrefix: string): AsyncGenerator<string> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return;
    throw err;
  }
  // Sorting a folder's files by name and its subfolders by name + "/" gives global key order:
  // every key below folder `d` starts with `d/`, so it sorts exactly where `d/` sorts.
  const items: { sortKey: string; name: string; isDir: boolean }[] = [];
  for (const entry of entries) {
    if (entry.isDirectory()) {
      items.push({ sortKey: `${entry.name}/`, name: entry.name, isDir: true });
    } else if (entry.isFile() && !isTempName(entry.name)) {
      items.push({ sortKey: entry.name, name: entry.name, isDir: false });
    }
  }
  items.sort((a, b) => compareBlobKeys(a.sortKey, b.sortKey));
  for (const item of items) {
    if (item.isDir) {
      yield* walkKeys(path.join(dir, item.name), `${keyPrefix}${item.name}/`);
    } else {
      yield `${keyPrefix}${item.name}`;
    }
  }
}
