import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
  DIRECT_BLOCK,
  type DirectFacts,
  DirectFactsWriter,
  finishDirectFacts,
  openDirectFacts,
} from "../../../src/pipelines/snapshots/stages/parse/byte-csv/direct-facts.ts";
import { directIoHere } from "../support/direct-io-here.ts";

const dir = mkdtempSync(path.join(tmpdir(), "tm-direct-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const onExt4 = directIoHere(dir);

let files = 0;

/** Bytes of a batch, every one telling where it came from. */
function batchBytes(batch: number, size: number): Uint8Array {
  return Uint8Array.from({ length: size }, (_, i) => (batch * 31 + i * 7) % 251);
}

/**
 * Writes the batches in order as two workers would (each reserve in turn, then its write),
 * after `before` bytes already in the file; returns the file's bytes and the expected ones.
 * Nothing waits between batches: a worker's next write comes while its last one is still in
 * the background, and is written at once.
 */
async function writeBatches(before: number, sizes: number[], breakDirect = false) {
  const file = path.join(dir, `facts-${files++}.ndjson`);
  const existing = batchBytes(999, before);
  writeFileSync(file, existing);
  const fd = openSync(file, "r+");
  const opened = openDirectFacts(file, fd, before);
  if (onExt4) expect(opened).toBeDefined();
  // Where direct writes are refused, the same protocol runs on ordinary writes.
  const direct: DirectFacts = opened ?? {
    fd: openSync(file, "r+"),
    carry: new SharedArrayBuffer(8 + DIRECT_BLOCK),
  };
  if (!opened) {
    new Int32Array(direct.carry, 0, 1)[0] = before % DIRECT_BLOCK;
    new Uint8Array(direct.carry, 8).set(existing.subarray(before - (before % DIRECT_BLOCK)));
  }
  const readOnly = openSync(file, "r");
  const workers = [0, 1].map(
    () => new DirectFactsWriter(breakDirect ? { ...direct, fd: readOnly } : direct, fd),
  );
  let end = before;
  const expected = [existing];
  const writes: Array<Promise<void>> = [];
  sizes.forEach((size, n) => {
    const bytes = batchBytes(n, size);
    const blocks = workers[n % 2]!.reserve(end, bytes);
    end += size;
    if (blocks) {
      writes.push(
        new Promise((resolve, reject) =>
          workers[n % 2]!.write(blocks, (err) => (err ? reject(err) : resolve())),
        ),
      );
      // The batch's bytes are the writer's to copy before write() returns, no longer.
      bytes.fill(0);
    }
    expected.push(batchBytes(n, size));
  });
  await Promise.all(writes);
  finishDirectFacts(direct, fd, end);
  for (const f of [fd, direct.fd, readOnly]) closeSync(f);
  return { written: readFileSync(file), expected: Buffer.concat(expected) };
}

describe("facts written in whole blocks (direct I/O)", () => {
  it("leaves the file byte for byte what the batches hold, whatever their sizes (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 3 * DIRECT_BLOCK }),
        fc.array(
          fc.oneof(
            fc.integer({ min: 0, max: 2 * DIRECT_BLOCK }),
            fc.constantFrom(DIRECT_BLOCK, 3 * DIRECT_BLOCK - 1),
            fc.integer({ min: 1 << 20, max: (1 << 20) + 3 * DIRECT_BLOCK }),
          ),
          { maxLength: 12 },
        ),
        async (before, sizes) => {
          const { written, expected } = await writeBatches(before, sizes);
          expect(written.length).toBe(expected.length);
          expect(written.equals(expected)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("falls back to ordinary writes of the same ranges when a direct write is refused", async () => {
    const { written, expected } = await writeBatches(100, [5000, 3 << 20, 17, 0, 9000], true);
    expect(written.equals(expected)).toBe(true);
  });

  it("refuses a carry that does not end where the batch starts", () => {
    const file = path.join(dir, "mismatch.ndjson");
    writeFileSync(file, "x".repeat(10));
    const fd = openSync(file, "r+");
    const direct = openDirectFacts(file, fd, 10);
    try {
      if (onExt4) expect(direct).toBeDefined();
      if (!direct) return;
      const writer = new DirectFactsWriter(direct, fd);
      expect(() => writer.reserve(11, new Uint8Array(5))).toThrow(/10 bytes carried to offset 11/);
      closeSync(direct.fd);
    } finally {
      closeSync(fd);
    }
  });

  it("is not offered where the file cannot be opened for direct writes", () => {
    const file = path.join(dir, "refused.ndjson");
    writeFileSync(file, "");
    const fd = openSync(file, "r");
    try {
      // A folder: opening it for writing fails, as on a file system without direct I/O.
      expect(openDirectFacts(dir, fd, 0)).toBeUndefined();
    } finally {
      closeSync(fd);
    }
  });
});
