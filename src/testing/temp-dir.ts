import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { onTestFinished } from "vitest";

/**
 * A fresh folder under `os.tmpdir()` (so TMPDIR is respected), removed when the current test
 * finishes. Call it inside a test; cleanups registered after it (closing a database or a server
 * that lives in the folder) run before it.
 */
export function testTempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  // Retries: a child process that just exited may still be releasing files in it.
  onTestFinished(() => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }));
  return dir;
}
