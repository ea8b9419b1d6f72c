import { hash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { csvField } from "../../../src/pipelines/snapshots/fake/supplier-files.ts";
import { CsvBatchProcessor } from "../../../src/pipelines/snapshots/stages/parse/byte-csv/csv-batch.ts";
import {
  MAX_BATCHED_PAYLOAD,
  RowIdBatch,
} from "../../../src/pipelines/snapshots/stages/parse/byte-csv/row-ids/row-id-batch.ts";
import { sha256x4Module } from "../../../src/pipelines/snapshots/stages/parse/byte-csv/row-ids/sha256x4-code.ts";
import { SHA256X4_WASM } from "../../../src/pipelines/snapshots/stages/parse/byte-csv/row-ids/sha256x4-wasm.ts";
import { batchSetup, configWith, textPath } from "./batch-setup.ts";

const sha = (b: Uint8Array) => hash("sha256", b, "hex");

/** Queues each message (written into the batch's facts with room for its id), runs, reads ids. */
function idsOf(batch: RowIdBatch, messages: readonly Uint8Array[]): string[] {
  const facts = batch.facts;
  facts.used = 0;
  const at: number[] = [];
  for (const m of messages) {
    facts.ensure(m.length + 64);
    at.push(facts.used);
    facts.buf.set(m, facts.used + 64);
    facts.used += m.length + 64;
    batch.queue(at.at(-1)! + 64, m.length, at.at(-1)!);
  }
  batch.run();
  return at.map((p) => facts.buf.toString("latin1", p, p + 64));
}

describe("batched row ids (4-lane SHA-256 in WebAssembly)", () => {
  it("the shipped module is the one sha256x4-code.ts generates (npx tsx scripts/gen-row-id-wasm.ts)", () => {
    expect(Buffer.from(SHA256X4_WASM, "base64").equals(Buffer.from(sha256x4Module()))).toBe(true);
  });

  it("hashes every length from empty to the longest batched payload as node:crypto does", () => {
    const batch = RowIdBatch.create(1 << 16)!;
    expect(batch).toBeDefined();
    const messages = Array.from({ length: MAX_BATCHED_PAYLOAD + 1 }, (_, n) =>
      Uint8Array.from({ length: n }, (_, i) => (n * 31 + i * 17) & 255),
    );
    // Several runs (a batch holds `capacity` rows), the facts growing from 64 KB to ~8 MB.
    const ids: string[] = [];
    for (let i = 0; i < messages.length; i += 1000) {
      ids.push(...idsOf(batch, messages.slice(i, i + 1000)));
    }
    expect(ids).toEqual(messages.map(sha));
  });

  it("groups of any size, messages of mixed lengths in one group (property)", () => {
    const batch = RowIdBatch.create(1 << 12)!;
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 300 }), { minLength: 1, maxLength: 11 }),
        (messages) => {
          expect(idsOf(batch, messages)).toEqual(messages.map(sha));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("queued rows are forgotten by clear(): a later run writes only its own ids", () => {
    const batch = RowIdBatch.create(1 << 12)!;
    batch.facts.ensure(200);
    batch.facts.buf.fill(0x2e, 0, 200);
    batch.queue(64, 10, 0);
    batch.clear();
    batch.run();
    expect(batch.facts.buf.toString("latin1", 0, 64)).toBe(".".repeat(64));
  });
});

const cfg = configWith([
  { name: "sku", required: true },
  { name: "qty", type: "integer" },
  { name: "name" },
]);
const setup = batchSetup(cfg, ["sku", "qty", "name", "cat"]);

function expectLikeTextPath(processor: CsvBatchProcessor, body: string) {
  const out = processor.process(Buffer.from(body, "utf8"), 2, 0);
  const expected = textPath(setup, body);
  const text = (b: Uint8Array) => Buffer.from(b).toString();
  expect(text(out.facts)).toBe(expected.facts);
  expect(out.keys.map(text)).toEqual(expected.keys);
  return out;
}

describe("batched row ids in the CSV batch processor", () => {
  it("a batch of more rows than a run holds, with payloads too long to batch among them, writes what the text path writes", () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => {
      const name = i % 997 === 0 ? "Ж".repeat(MAX_BATCHED_PAYLOAD) : `Товар ${i} синий`;
      return [`K${i}`, String(i % 50), name, `c${i % 7}`].map((v) => csvField(v)).join(",");
    });
    const out = expectLikeTextPath(new CsvBatchProcessor(setup), `${rows.join("\n")}\n`);
    expect(out.counts.totals).toEqual({ total: 20_000, good: 20_000, bad: 0 });
  });

  it("a batch that failed half way leaves nothing queued for the next one", () => {
    const processor = new CsvBatchProcessor(setup);
    expect(() =>
      processor.process(Buffer.from('K1,5,a,c1\nK2,6,b,c1\n"K3,7,c,c1\n'), 2, 0),
    ).toThrow(/unterminated quoted field/);
    // Had the two rows before the failure stayed queued, their ids would be written where their
    // lines were: inside this long row's payload.
    expectLikeTextPath(processor, `K9,1,${"x".repeat(400)},c1\nK10,2,y,c1\n`);
  });
});
