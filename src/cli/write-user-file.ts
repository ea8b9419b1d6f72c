import { randomBytes } from "node:crypto";
import {
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { UsageError } from "../engine/errors.ts";

/** Why a file could not be written, in a few words a user can act on. */
export function writeFailure(err: unknown, file: string): string {
  const code = (err as NodeJS.ErrnoException).code;
  const dir = path.dirname(file);
  switch (code) {
    case "EEXIST":
      return "it already exists; not overwriting it";
    case "ENOENT":
      return `folder ${dir} does not exist`;
    case "ENOTDIR":
      return "part of the path is a file, not a folder";
    case "EISDIR":
      return "it is a folder";
    case "EACCES":
    case "EPERM":
      return `permission denied (folder ${dir})`;
    case "EROFS":
      return "read-only file system";
    case "ENOSPC":
      return "no space left on the device";
    default:
      return (err as Error).message ?? String(err);
  }
}

/**
 * Writes a file the user named (`init`, `job export -o`) whole or not at all: the text goes to a
 * temporary file beside it first, so a full disk or a kill never leaves half a file. With
 * `exclusive`, an existing file is kept. Failures are one UsageError naming the file and why.
 */
export function writeUserFile(file: string, text: string, options: { exclusive?: boolean } = {}) {
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${randomBytes(4).toString("hex")}.tmp`,
  );
  try {
    const fd = openSync(temp, "wx", 0o644);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // link() refuses an existing target where rename() would replace it.
    if (options.exclusive) linkSync(temp, file);
    else renameSync(temp, file);
  } catch (err) {
    throw new UsageError(`cannot write ${file}: ${writeFailure(err, file)}`, { cause: err });
  } finally {
    // After link() the temporary name is a second one to drop; after rename() it is gone.
    unlinkSafe(temp);
  }
}

function unlinkSafe(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone, or never created.
  }
}
