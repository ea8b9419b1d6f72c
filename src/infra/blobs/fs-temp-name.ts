import { randomBytes } from "node:crypto";

// `.<name>.<16 hex>.tmp`, or `.<16 hex>.tmp` when the name is too long to embed.
const TEMP_NAME = /^\.(?:.*\.)?[0-9a-f]{16}\.tmp$/s;
// Most file systems cap a name at 255 bytes; the decoration adds 1 + 1 + 16 + 4 bytes.
const MAX_EMBEDDED_NAME_BYTES = 255 - 22;

// A randomBytes call costs 2–6 µs, most of it the call itself: one call draws the random part
// of 512 names (a first load names one temp file per object).
const POOLED_NAMES = 512;
let pool = Buffer.alloc(0);
let offset = 0;

/** 16 hex digits of fresh randomness (64 bits, never handed out twice). */
function randomHex16(): string {
  if (offset >= pool.length) {
    pool = randomBytes(8 * POOLED_NAMES);
    offset = 0;
  }
  const hex = pool.toString("hex", offset, offset + 8);
  offset += 8;
  return hex;
}

/**
 * A unique name for the temp file that will be renamed onto `name`. It lives in the same folder
 * so the rename is atomic (same file system) and starts with a dot so it is easy to spot.
 */
export function tempNameFor(name: string): string {
  const rand = randomHex16();
  return Buffer.byteLength(name, "utf8") <= MAX_EMBEDDED_NAME_BYTES
    ? `.${name}.${rand}.tmp`
    : `.${rand}.tmp`;
}

/** True for names tempNameFor can produce; such files are in-flight (or crashed) writes. */
export function isTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}
