/**
 * Vitest global setup: the run gets a fresh TMPDIR of its own, and whatever the tests leave in it
 * fails the run, so a suite that forgets its cleanup is caught where it is written.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** tsx's compile cache (`tsx-<uid>`): a cache, not a leak; linked to the outer one to stay warm. */
const TSX_CACHE = /^tsx-[^/]+$/;

/** One kind of leftover: a mkdtemp prefix and how many of its folders remain. */
export interface Leftover {
  pattern: string;
  count: number;
}

/** What a run left in `dir`, grouped by name with mkdtemp's random six characters masked. */
export function listLeftovers(dir: string): Leftover[] {
  const counts = new Map<string, number>();
  for (const name of readdirSync(dir)) {
    if (TSX_CACHE.test(name)) continue;
    const pattern = name.replace(/[A-Za-z0-9]{6}$/, "*");
    counts.set(pattern, (counts.get(pattern) ?? 0) + 1);
  }
  return [...counts]
    .map(([pattern, count]) => ({ pattern, count }))
    .sort((a, b) => b.count - a.count);
}

/** The one line printed when a run leaks, or undefined when it left nothing. */
export function leftoverLine(leftovers: readonly Leftover[]): string | undefined {
  if (leftovers.length === 0) return undefined;
  const total = leftovers.reduce((n, l) => n + l.count, 0);
  const list = leftovers.map((l) => (l.count > 1 ? `${l.pattern} ×${l.count}` : l.pattern));
  const entries = total === 1 ? "entry" : "entries";
  return `[tidemark tests] tests left ${total} temp ${entries} behind (remove them in afterAll/onTestFinished): ${list.join(", ")}`;
}

/** Points TMPDIR at a fresh folder; the returned teardown checks it is empty and removes it. */
export default function setup(): () => void {
  const outer = tmpdir();
  const root = mkdtempSync(path.join(outer, "tidemark-test-run-"));
  const uid = process.geteuid?.() ?? 0;
  const cache = path.join(outer, `tsx-${uid}`);
  try {
    mkdirSync(cache, { recursive: true });
    symlinkSync(cache, path.join(root, `tsx-${uid}`));
  } catch {
    // No shared cache: children compile cold, which only costs time.
  }
  const previous = process.env.TMPDIR;
  // Test workers and their child processes are started after this and inherit it.
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    if (!existsSync(root)) return;
    const line = leftoverLine(listLeftovers(root));
    rmSync(root, { recursive: true, force: true });
    if (line) {
      console.error(line);
      process.exitCode = 1;
    }
  };
}
