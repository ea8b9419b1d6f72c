import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readAheadChunks } from "../../../src/pipelines/snapshots/stages/publish/storage/read-ahead-chunks.ts";

const dir = mkdtempSync(path.join(tmpdir(), "tm-read-ahead-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fileOf(bytes: Buffer): string {
  const file = path.join(dir, `f-${bytes.length}-${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, bytes);
  return file;
}

describe("readAheadChunks", () => {
  it("yields every byte in order, a chunk staying intact until the next one is asked for", async () => {
    const bytes = randomBytes(10_000);
    const handle = await open(fileOf(bytes), "r");
    const seen: Buffer[] = [];
    for await (const chunk of readAheadChunks(handle, 777).chunks) {
      const copy = Buffer.from(chunk);
      // The next chunk is being read meanwhile: it must not land in this one's buffer.
      await new Promise((r) => setTimeout(r, 2));
      expect(Buffer.compare(Buffer.from(chunk), copy)).toBe(0);
      seen.push(copy);
    }
    expect(Buffer.concat(seen).equals(bytes)).toBe(true);
    expect(seen.length).toBe(Math.ceil(10_000 / 777));
    expect(handle.fd).toBe(-1);
  });

  it("an empty file yields nothing; stopping early closes the file", async () => {
    const empty = await open(fileOf(Buffer.alloc(0)), "r");
    const none: Uint8Array[] = [];
    for await (const chunk of readAheadChunks(empty, 64).chunks) none.push(chunk);
    expect(none).toEqual([]);
    expect(empty.fd).toBe(-1);
    const handle = await open(fileOf(randomBytes(1000)), "r");
    for await (const chunk of readAheadChunks(handle, 100).chunks) {
      expect(chunk.length).toBe(100);
      break;
    }
    expect(handle.fd).toBe(-1);
  });
});
