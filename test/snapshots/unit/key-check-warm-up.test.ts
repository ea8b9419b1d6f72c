import * as fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { warmUpKeyCheck } from "../../../src/pipelines/snapshots/stages/publish/artifacts/key-check-warm-up.ts";

// Every path the warm-up creates or writes, seen through node:fs.
vi.mock("node:fs", async (original) => {
  const real = await original<typeof import("node:fs")>();
  return {
    ...real,
    mkdtempSync: vi.fn(real.mkdtempSync),
    writeFileSync: vi.fn(real.writeFileSync),
  };
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("key check warm-up", () => {
  it("runs once per thread, writing only inside the key index folder it is given, which it leaves as it was", () => {
    const keysDir = fs.mkdtempSync(path.join(tmpdir(), "tm-warm-keys-"));
    dirs.push(keysDir);
    const bucket = path.join(keysDir, "0000.tsv");
    fs.writeFileSync(bucket, '0123456789abcdef\t2\t\t"A"\n');
    vi.mocked(fs.mkdtempSync).mockClear();
    vi.mocked(fs.writeFileSync).mockClear();

    expect(warmUpKeyCheck(keysDir)).toBe(true);

    // A thread stopped mid-warm-up (the check failed on another thread) leaves its files where
    // the run's own are, never in the machine's temp folder.
    const created = vi.mocked(fs.mkdtempSync).mock.calls.map(([prefix]) => String(prefix));
    const written = vi.mocked(fs.writeFileSync).mock.calls.map(([file]) => String(file));
    expect(created).toHaveLength(1);
    expect(written.length).toBeGreaterThan(0);
    for (const p of [...created, ...written])
      expect(p.startsWith(`${keysDir}${path.sep}`)).toBe(true);
    expect(fs.readdirSync(keysDir)).toEqual(["0000.tsv"]);
    expect(fs.readFileSync(bucket, "utf8")).toBe('0123456789abcdef\t2\t\t"A"\n');
    expect(warmUpKeyCheck(keysDir)).toBe(false);
  });
});
