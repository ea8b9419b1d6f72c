// `tidemark demo --only books`: fake API + SMTP capture, two runs, cursor advancing, mail shown.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/testing/run-cli.ts";
import { booksRegistry } from "./support/books-harness.ts";

describe("books demo", () => {
  it("shows the cursor advancing over two runs and the captured digests, in a few seconds", async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), "tm-books-demo-"));
    try {
      const started = Date.now();
      const res = await runCli(["demo", "--only", "books", "--data-dir", path.join(cwd, "demo")], {
        cwd,
        registry: booksRegistry(),
      });
      expect(res.code).toBe(0);
      expect(Date.now() - started).toBeLessThan(10_000);
      const out = res.stdout;
      expect(out).toContain("Run 1: succeeded");
      expect(out).toContain("startIndex 0 → 40 (stop: max_per_run)");
      expect(out).toMatch(/Run 2: succeeded\n {2}collect: startIndex 40 → (79|80) /);
      const rows = [
        ...out.matchAll(/^ {2}consultant-books {2}(\d+)\s+0\s+\S+\s+([0-9a-f]{8})…$/gm),
      ];
      expect(rows.map((r) => Number(r[1]))).toEqual([40, expect.any(Number)]);
      expect(rows[0]![2]).toBe(rows[1]![2]); // one cursor row, same query set
      expect(Number(rows[1]![1])).toBeGreaterThan(40);
      expect(out.match(/captured mail → to: me@example.com, subject: "New books"/g)).toHaveLength(
        2,
      );
      expect(out.match(/^ {4}[1-5]\. /gm)).toHaveLength(10);
      // The cursor table and the calls list fit an 80-column terminal.
      const wide = out.split("\n").filter((l) => /consultant-books {2}|@\d+\+\d+/.test(l));
      expect(wide.length).toBeGreaterThan(0);
      expect(wide.filter((l) => l.length > 80)).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
