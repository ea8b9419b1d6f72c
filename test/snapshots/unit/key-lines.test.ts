import { describe, expect, it } from "vitest";
import { identityHash } from "../../../src/pipelines/snapshots/stages/publish/artifacts/key-index.ts";
import {
  IdentityTable,
  indexLines,
  sameBytes,
} from "../../../src/pipelines/snapshots/stages/publish/artifacts/key-lines.ts";

const ROW_ID = "0123456789abcdef";

describe("key index lines", () => {
  it("finds each line's identity and hashes it as identityHash does, whatever its text", () => {
    const identities = ['"tools"\t"A1"', '\t"Б3"', '"кат"\t"😀 x"', '"c"\t"tab\\tin"', '""\t""'];
    const text = identities.map((id, i) => `${ROW_ID}\t${i + 2}\t${id}\n`).join("");
    const lines = indexLines(Buffer.from(text));
    expect(lines.count).toBe(identities.length);
    identities.forEach((id, k) => {
      expect(lines.text.toString("utf8", lines.idStart[k]!, lines.idEnd[k]!)).toBe(id);
      expect(lines.hash[k]! >>> 0).toBe(identityHash(id));
    });
  });

  it("reads lines whose row id is not the usual width, and a last line without its LF", () => {
    const lines = indexLines(Buffer.from(`abc\t7\t"x"\t"k"\n${ROW_ID}0\t8\t"y"\t"k"`));
    expect(lines.count).toBe(2);
    expect(lines.text.toString("utf8", lines.idStart[0]!, lines.idEnd[0]!)).toBe('"x"\t"k"');
    expect(lines.text.toString("utf8", lines.idStart[1]!, lines.idEnd[1]!)).toBe('"y"\t"k"');
    expect(lines.hash[1]! >>> 0).toBe(identityHash('"y"\t"k"'));
  });

  it("indexes every line when the first is far longer than the rest (its length sizes the arrays)", () => {
    const first = `${ROW_ID}\t2\t"${"x".repeat(5000)}"\t"K"\n`;
    const rest = Array.from({ length: 3000 }, (_, i) => `${ROW_ID}\t${i + 3}\t""\t"K${i}"\n`);
    const lines = indexLines(Buffer.from(first + rest.join("")));
    expect(lines.count).toBe(3001);
    const last = lines.count - 1;
    expect(lines.text.toString("utf8", lines.idStart[last]!, lines.idEnd[last]!)).toBe(
      '""\t"K2999"',
    );
    expect(lines.hash[last]! >>> 0).toBe(identityHash('""\t"K2999"'));
  });

  it("tells duplicates apart from distinct keys that share a bucket's low hash bits", () => {
    // Keys of one bucket share the low bits of their hash: the table must still find them all.
    const keys: string[] = [];
    for (let i = 0; keys.length < 3000; i++) {
      const id = `"c"\t"K${i}"`;
      if ((identityHash(id) & 15) === 5) keys.push(id);
    }
    const all = [...keys, ...keys.slice(0, 100)];
    const text = all.map((id, i) => `${ROW_ID}\t${i + 2}\t${id}\n`).join("");
    const lines = indexLines(Buffer.from(text));
    const table = new IdentityTable(lines);
    const earlier = Array.from({ length: lines.count }, (_, k) => table.add(k));
    expect(earlier.slice(0, keys.length).every((j) => j === -1)).toBe(true);
    expect(earlier.slice(keys.length)).toEqual(keys.slice(0, 100).map((_, j) => j));
    const probe = indexLines(Buffer.from(`${ROW_ID}\t2\t"c"\t"nope"\n`));
    expect(table.find(probe, 0)).toBe(-1);
  });

  it("answers every find the same with a miss filter as without: present, duplicate or absent", () => {
    // One bucket's keys (they share the low bits of their hash), some twice, and absent ones of
    // the same bucket to look up: the filter may only answer -1 for an identity not in the table.
    const inBucket = (i: number, tag: string) => `"c${i % 7}"\t"${tag}${i}"`;
    const present: string[] = [];
    const absent: string[] = [];
    for (let i = 0; present.length < 5000 || absent.length < 5000; i++) {
      const id = inBucket(i, i % 2 === 0 ? "P" : "A");
      if ((identityHash(id) & 15) !== 3) continue;
      if (i % 2 === 0) present.push(id);
      else absent.push(id);
    }
    const all = [...present, ...present.slice(0, 50)];
    const lines = indexLines(
      Buffer.from(all.map((id, i) => `${ROW_ID}\t${i + 2}\t${id}\n`).join("")),
    );
    const plain = new IdentityTable(lines);
    const filtered = new IdentityTable(lines);
    for (let k = 0; k < lines.count; k++) {
      plain.add(k);
      filtered.add(k);
    }
    filtered.addMissFilter((n) => new Int32Array(n));
    const find = (t: IdentityTable, id: string) =>
      t.find(indexLines(Buffer.from(`${ROW_ID}\t2\t${id}\n`)), 0);
    const answers = (t: IdentityTable) => [...present, ...absent].map((id) => find(t, id));
    expect(answers(filtered)).toEqual(answers(plain));
    expect(present.map((id) => find(filtered, id))).toEqual(present.map((_, k) => k));
    expect(absent.every((id) => find(filtered, id) === -1)).toBe(true);
  });

  it("compares byte ranges as Buffer#equals does, at any offset and length, one byte apart or not", () => {
    // Four bytes at a time then the rest: every length around a multiple of four, the same
    // text at offsets of every alignment in two buckets, equal and differing in each position.
    const x = "0123456789abcdefghijklmnopqrstuvwxyz";
    const a = indexLines(Buffer.from(`${ROW_ID}\t2\t"c"\t"${x}"\n`));
    const b = indexLines(Buffer.from(`${ROW_ID}\t2\t"cc"\t"ab${x}"\n`));
    const ax = a.text.indexOf(x);
    const bx = b.text.indexOf(x);
    for (let len = 0; len <= 13; len++) {
      for (let as = 0; as < 4; as++) {
        for (let bs = 0; bs < 4; bs++) {
          const truth = a.text
            .subarray(ax + as, ax + as + len)
            .equals(b.text.subarray(bx + bs, bx + bs + len));
          expect(truth).toBe(len === 0 || as === bs);
          expect(sameBytes(a, ax + as, ax + as + len, b, bx + bs, bx + bs + len)).toBe(truth);
        }
        for (let d = 0; d < len; d++) {
          b.text[bx + as + d]! ^= 1;
          expect(sameBytes(a, ax + as, ax + as + len, b, bx + as, bx + as + len)).toBe(false);
          b.text[bx + as + d]! ^= 1;
        }
        expect(sameBytes(a, ax + as, ax + as + len, b, bx + as, bx + as + len + 1)).toBe(false);
      }
    }
  });
});
