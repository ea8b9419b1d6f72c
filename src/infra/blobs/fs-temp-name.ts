import { randomBytes } from "node:crypto";

// `.<name>.<16 hex>.tmp`, or `.<16 hex>.tmp` when the name is too long to embed.
const TEMP_NAME = /^\.(?:.*\.)?[0-9a-f]{16}\.tmp$/s;
// Most file systems cap a name at 255 bytes; the decoration adds 1 + 1 + 16 + 4 bytes.
const MAX_EMBEDDED_NAME_BYTES = 255 - 22;

/**
 * A unique name for the temp file that will be renamed onto `name`. It lives in the same folder
 * so the rename is atomic (same file system) and starts with a dot so it is easy to spot.
 */
export function tempNameFor(name: string): string {
  const rand = randomBytes(8).toString("hex");
  return Buffer.byteLength(name, "utf8") <= MAX_EMBEDDED_NAME_BYTES
    ? `.${name}.${rand}.tmp`
    : `.${rand}.tmp`;
}

/** True for names tempNameFor can produce; such files are in-flight (or crashed) writes. */
export function isTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}
