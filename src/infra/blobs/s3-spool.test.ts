import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { discardSpool, spoolBody, sweepDeadSpools } from "./s3-spool.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function folder(): string {
  const d = mkdtempSync(path.join(tmpdir(), "tm-spool-"));
  dirs.push(d);
  return d;
}

/** The pid of a process that has already exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(r.stdout.toString());
}

async function* bytes(n: number) {
  yield new Uint8Array(n);
}

describe("S3 upload spool files", () => {
  it("are named by their process and removed after the upload", async () => {
    const dir = folder();
    const spool = await spoolBody(bytes(2048), dir, 1024);
    expect(spool.kind).toBe("file");
    expect(readdirSync(dir)[0]).toMatch(
      new RegExp(`^tidemark-s3-${process.pid}-[0-9a-f]{16}\\.tmp$`),
    );
    await discardSpool(spool);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a killed upload's spool file is swept by the next spool in that folder; live ones stay", async () => {
    const dir = folder();
    const old = Date.now() / 1000 - 3600;
    const dead = path.join(dir, `tidemark-s3-${deadPid()}-0123456789abcdef.tmp`);
    const deadButRecent = path.join(dir, `tidemark-s3-${deadPid()}-fedcba9876543210.tmp`);
    const live = path.join(dir, `tidemark-s3-${process.ppid}-00112233445566aa.tmp`);
    for (const f of [dead, deadButRecent, live]) writeFileSync(f, "x");
    utimesSync(dead, old, old);
    utimesSync(live, old, old);
    const removed = await sweepDeadSpools(dir);
    expect(removed).toEqual([dead]);
    expect(existsSync(deadButRecent)).toBe(true);
    expect(existsSync(live)).toBe(true);
  });
});
