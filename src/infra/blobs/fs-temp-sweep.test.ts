import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testTempDir } from "../../testing/temp-dir.ts";
import { FsBlobStore } from "./fs-blob-store.ts";
import { sweepTempFiles } from "./fs-temp-sweep.ts";

const MINUTE = 60_000;
const TTL = MINUTE;
const HEX = "0123456789abcdef";

/** The pid of a process that has exited (a child started and waited for). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.exit(0)"]);
  if (child.pid === undefined) throw new Error("could not start a child process");
  return child.pid;
}

/** Writes `rel` below root with its mtime `ageMs` in the past. */
async function leave(root: string, rel: string, ageMs: number, now: number): Promise<void> {
  const file = path.join(root, ...rel.split("/"));
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, "partial");
  const when = new Date(now - ageMs);
  await utimes(file, when, when);
}

describe("sweepTempFiles", () => {
  it("removes temp files older than the TTL whose writer is gone, keeping fresh and live ones", async () => {
    const root = testTempDir("tm-temp-sweep-");
    const store = new FsBlobStore(root);
    await store.put("raw/source=a/entity=b/source_id=1/hash=x.json", "{}");
    const now = Date.now();
    const dead = deadPid();
    const dir = "raw/source=a/entity=b/source_id=2";
    const stale = [
      `${dir}/.hash=y.json.pid${dead}.${HEX}.tmp`, // killed writer, 10 minutes ago
      `raw/source=a/entity=b/source_id=3/.pid${dead}.${HEX}.tmp`, // long name, 2 TTLs old
      `raw/.hash=z.json.${HEX}.tmp`, // written before pids were recorded: age alone decides
    ];
    await leave(root, stale[0]!, 10 * MINUTE, now);
    await leave(root, stale[1]!, 2 * TTL, now);
    await leave(root, stale[2]!, 3 * TTL, now);
    const fresh = [
      `${dir}/.hash=w.json.pid${dead}.fedcba9876543210.tmp`, // dead writer, but only 5 s old
      `raw/.hash=v.json.aaaaaaaaaaaaaaaa.tmp`, // no pid, 30 s old
      `raw/.hash=u.json.pid${process.pid}.bbbbbbbbbbbbbbbb.tmp`, // an hour old, writer alive
    ];
    await leave(root, fresh[0]!, 5_000, now);
    await leave(root, fresh[1]!, 30_000, now);
    await leave(root, fresh[2]!, 60 * MINUTE, now);
    // Objects are never temp files, however old or oddly named.
    await leave(root, "raw/old-object.json", 60 * MINUTE, now);

    const result = await sweepTempFiles(root, { olderThanMs: TTL, now });

    expect(result.removed.sort()).toEqual([...stale].sort());
    expect(result.kept).toBe(3);
    for (const rel of stale) expect(existsSync(path.join(root, rel)), rel).toBe(false);
    for (const rel of fresh) expect(existsSync(path.join(root, rel)), rel).toBe(true);
    // The folder only the stale temp file lived in is gone; the store's objects are intact.
    expect(existsSync(path.join(root, "raw/source=a/entity=b/source_id=3"))).toBe(false);
    expect(await store.get("raw/source=a/entity=b/source_id=1/hash=x.json")).toEqual(
      Buffer.from("{}"),
    );
    expect(await store.get("raw/old-object.json")).toEqual(Buffer.from("partial"));
    const keys: string[] = [];
    for await (const info of store.list("raw/")) keys.push(info.key);
    expect(keys).toEqual(["raw/old-object.json", "raw/source=a/entity=b/source_id=1/hash=x.json"]);
  });

  it("asks whether the recorded writer is alive, and is a no-op on a missing root", async () => {
    const root = testTempDir("tm-temp-sweep-");
    const now = Date.now();
    await leave(root, `a/.k.json.pid4242.${HEX}.tmp`, 2 * TTL, now);
    const asked: number[] = [];
    const alive = await sweepTempFiles(root, {
      olderThanMs: TTL,
      now,
      isAlive: (pid) => asked.push(pid) > 0,
    });
    expect(asked).toEqual([4242]);
    expect(alive).toEqual({ removed: [], kept: 1 });
    const gone = await sweepTempFiles(root, { olderThanMs: TTL, now, isAlive: () => false });
    expect(gone.removed).toEqual([`a/.k.json.pid4242.${HEX}.tmp`]);
    expect(await readdir(root)).toEqual([]);
    expect(await sweepTempFiles(path.join(root, "nope"), { olderThanMs: TTL })).toEqual({
      removed: [],
      kept: 0,
    });
  });
});
