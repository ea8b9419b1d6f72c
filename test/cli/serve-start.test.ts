// `serve` holds its port before it touches anything: a taken port is one line and exit 2.
import { existsSync, readdirSync, statSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { expect, it } from "vitest";
import { runCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

/** Name, size and mtime of every file in dir. */
function snapshot(dir: string): string[] {
  return readdirSync(dir).map((f) => {
    const s = statSync(path.join(dir, f));
    return `${f} ${s.size} ${s.mtimeMs}`;
  });
}

it("on a taken port, exits 2 with one line before opening the database or the queue", async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
  const { port } = blocker.address() as { port: number };
  try {
    const cwd = testTempDir("tm-serve-start-");
    const dataDir = path.join(cwd, "data");
    const env = { TIDEMARK_DATA_DIR: dataDir, TIDEMARK_API_TOKENS: "a-long-enough-token-123" };
    // A fresh folder: nothing is created.
    const fresh = await runCli(["serve", "--port", String(port)], { cwd, env });
    expect(fresh.code).toBe(2);
    expect(fresh.stderr).toMatch(
      new RegExp(
        `^tidemark: cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE, the port is in use .*--port.*\\n$`,
      ),
    );
    expect(existsSync(dataDir)).toBe(false);

    // A database with a job: not a file of it is opened or changed.
    const add = await runCli(["job", "add", "j", "--type", "mercari.crawl"], { cwd, env });
    expect(add.code, add.stderr).toBe(0);
    const before = snapshot(dataDir);
    await new Promise((r) => setTimeout(r, 20));
    const busy = await runCli(["serve", "--port", String(port)], { cwd, env });
    expect(busy.code).toBe(2);
    expect(busy.stderr.split("\n").filter(Boolean)).toHaveLength(1);
    expect(snapshot(dataDir)).toEqual(before);
  } finally {
    blocker.close();
  }
});
