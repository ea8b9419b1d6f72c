import { statfsSync } from "node:fs";

/** ext4's magic number in statfs. */
const EXT4 = 0xef53;

/**
 * Whether `dir` is on a file system known to take direct writes (ext4 on Linux): there a test
 * expects the facts to go out with direct I/O; elsewhere the same outputs through the page
 * cache.
 */
export function directIoHere(dir: string): boolean {
  return process.platform === "linux" && statfsSync(dir).type === EXT4;
}
