// `tidemark db gc`: temp files that a `kill -9` during puts left in the blob folder are removed
// once older than the lease TTL with their writer gone; fresh ones and live writers' are kept.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import { runCli, TSX_IMPORT } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";
import { testRegistry } from "../../src/testing/test-pipeline.ts";

const STORE = new URL("../../src/infra/blobs/fs-blob-store.ts", import.meta.url).href;

/** Starts three streamed puts that never finish in a child process, then kills it with SIGKILL. */
async function killDuringPuts(root: string, dir: string): Promise<void> {
  const script = path.join(dir, "puts.mjs");
  await writeFile(
    script,
    `import { PassThrough } from "node:stream";
const { FsBlobStore } = await import(${JSON.stringify(STORE)});
const store = new FsBlobStore(${JSON.stringify(root)});
for (let i = 0; i < 3; i++) {
  const body = new PassThrough();
  body.write("partial body");
  void store.put("raw/source=s/entity=e/source_id=" + i + "/hash=h.json", body);
}
setTimeout(() => console.log("ready"), 300);
setInterval(() => {}, 1000);
`,
  );
  const child = spawn(process.execPath, ["--import", TSX_IMPORT, script], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let err = "";
    child.stderr.on("data", (d: Buffer) => {
      err += d;
    });
    child.stdout.on("data", (d: Buffer) => {
      if (String(d).includes("ready")) resolve();
    });
    void exited.then(() => reject(new Error(`child exited before ready: ${err}`)));
  });
  child.kill("SIGKILL");
  await exited;
}

/** Temp files below root, relative, sorted. */
async function tempFiles(root: string): Promise<string[]> {
  const all = await readdir(root, { recursive: true });
  return all.filter((f) => path.basename(f).endsWith(".tmp")).sort();
}

it("db gc removes the temp files a killed run left once older than the lease TTL", async () => {
  const cwd = testTempDir("tm-db-gc-");
  const root = path.join(cwd, "data", "blobs");
  const o = { cwd, registry: testRegistry() };
  await killDuringPuts(root, cwd);
  const left = await tempFiles(root);
  expect(left).toHaveLength(3);

  // Just killed: younger than the lease TTL (60 s by default), so kept for now.
  let r = await runCli(["db", "gc"], o);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`Blob store: ${root}\n`);
  expect(r.stdout).toContain("Removed 0 temp file(s)");
  expect(r.stdout).toContain("kept 3.");
  expect(await tempFiles(root)).toEqual(left);

  // Two minutes later they are stale; a live writer's temp file of the same age is kept.
  const old = new Date(Date.now() - 120_000);
  for (const f of left) await utimes(path.join(root, f), old, old);
  const live = path.join(root, "raw", `.live.json.pid${process.pid}.0123456789abcdef.tmp`);
  await writeFile(live, "being written");
  await utimes(live, old, old);
  r = await runCli(["db", "gc", "--json"], o);
  expect(r.code).toBe(0);
  const report = JSON.parse(r.stdout) as { blobs: string; removed: string[]; kept: number };
  expect(report.blobs).toBe(root);
  expect(report.removed.sort()).toEqual(left.map((f) => f.split(path.sep).join("/")));
  expect(report.kept).toBe(1);
  expect(await tempFiles(root)).toEqual([path.join("raw", path.basename(live))]);
  // Folders that held only a temp file are gone.
  expect(existsSync(path.join(root, "raw", "source=s"))).toBe(false);
});
