import { randomBytes } from "node:crypto";

// `.<name>.pid<writer's pid>.<16 hex>.tmp`, or `.pid<pid>.<16 hex>.tmp` when the name is too
// long to embed. Names written before the pid was recorded (`.<name>.<16 hex>.tmp`) still match.
const TEMP_NAME = /^\.(?:.*\.)?[0-9a-f]{16}\.tmp$/s;
const WRITER_PID = /(?:^\.|\.)pid(\d{1,10})\.[0-9a-f]{16}\.tmp$/;
const PID_PART = `pid${process.pid}.`;
// Most file systems cap a name at 255 bytes; the decoration adds 1 + 1 + pid + 16 + 4 bytes.
const MAX_EMBEDDED_NAME_BYTES = 255 - 22 - PID_PART.length;

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
 * so the rename is atomic (same file system), starts with a dot so it is easy to spot, and
 * records the writing process's pid, so housekeeping can tell a crashed write from a live one.
 */
export function tempNameFor(name: string): string {
  const rand = randomHex16();
  return Buffer.byteLength(name, "utf8") <= MAX_EMBEDDED_NAME_BYTES
    ? `.${name}.${PID_PART}${rand}.tmp`
    : `.${PID_PART}${rand}.tmp`;
}

/** The pid of the process that wrote a temp file, when its name records one. */
export function tempWriterPid(name: string): number | undefined {
  const match = WRITER_PID.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** True for names tempNameFor can produce; such files are in-flight (or crashed) writes. */
export function isTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}
