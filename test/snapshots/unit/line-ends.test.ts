import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { encodeText, writeXlsxFile } from "../../../src/pipelines/snapshots/fake/supplier-files.ts";
import { supplierConfigSchema } from "../../../src/pipelines/snapshots/stages/intake/config/supplier-config.ts";
import { parseInput } from "../../../src/pipelines/snapshots/stages/parse/parse-input.ts";
import { FsSnapshotStorage } from "../../../src/pipelines/snapshots/stages/publish/storage/fs-storage.ts";
import { GateFailure } from "../../../src/pipelines/snapshots/stages/quality/emit/schema.ts";

const root = mkdtempSync(path.join(tmpdir(), "tm-line-ends-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const KEY = "inbox/acme/f.csv";
const RUN = "acme_20260101T000000Z_abcdef";

const cfg = (extra: Record<string, unknown> = {}) =>
  supplierConfigSchema.parse({
    min_fact_count: 1,
    max_bad_ratio: 1,
    allow_empty_snapshot: true,
    key: "sku",
    columns: [{ name: "sku", required: true }, { name: "name" }],
    ...extra,
  });

type Outcome =
  | { ok: true; facts: string; bad: string }
  | { ok: false; reason: string; detail: string };

/** How a file is read: the text path, or the byte path inline (workers 0) or on 2 threads. */
type Path = "text" | "inline" | "workers";

/** Parses `bytes` as inbox/acme/f.csv, served in chunks cut at `cuts`, by one read path. */
async function read(
  bytes: Buffer,
  via: Path,
  options: { cuts?: number[]; config?: ReturnType<typeof cfg> } = {},
): Promise<Outcome> {
  const dir = mkdtempSync(path.join(root, "r-"));
  mkdirSync(path.join(dir, "inbox", "acme"), { recursive: true });
  writeFileSync(path.join(dir, KEY), bytes);
  const fs = new FsSnapshotStorage(dir, false);
  const points = [...new Set((options.cuts ?? []).map((c) => c % (bytes.length + 1)))].sort(
    (a, b) => a - b,
  );
  async function* chunks() {
    let prev = 0;
    for (const p of [...points, bytes.length]) {
      if (p > prev) yield bytes.subarray(prev, p);
      prev = p;
    }
  }
  const storage = new Proxy(fs, {
    get(target, prop, receiver) {
      if (prop === "openChunks") return async () => ({ chunks: chunks(), close() {} });
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const workDir = await fs.runWorkDir(RUN);
  try {
    await parseInput({
      storage,
      key: KEY,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      cfg: options.config ?? cfg(),
      workDir,
      runId: RUN,
      supplier: "acme",
      workers: via === "workers" ? 2 : 0,
      parallelMinBytes: 0,
      textPath: via === "text",
    });
  } catch (err) {
    if (err instanceof GateFailure) return { ok: false, reason: err.reason, detail: err.detail };
    throw err;
  } finally {
    setTimeout(() => rmSync(dir, { recursive: true, force: true }), 0);
  }
  return {
    ok: true,
    facts: readFileSync(path.join(workDir, "facts.ndjson"), "utf8"),
    bad: readFileSync(path.join(workDir, "bad.ndjson"), "utf8"),
  };
}

const detail = (line: number, byte: number) =>
  `${KEY}: lone CR line ending at line ${line} (byte offset ${byte}); records must end with LF or CRLF`;

const mixedDetail = (line: number, byte: number) =>
  `${KEY}: LF line ending at line ${line} (byte offset ${byte}) in a file whose records end with a lone CR; records must all end the same way (LF, CRLF or CR)`;

/** What the reference reading of a text finds about its line ends. */
interface LineEnds {
  /** The first line-end problem: a lone CR in an LF/CRLF file, or an LF in a CR file. */
  problem?: { line: number; byte: number; mixed: boolean };
  /** The text with a CR file's record-ending CRs turned into LF (otherwise the text). */
  lfTwin: string;
}

/**
 * Reference: the style is the first line end outside quoted fields, as CsvRecordParser reads
 * fields (a quote opens a field only at its start; a doubled quote inside is an escape). In an
 * LF/CRLF file the first CR not followed by LF is the problem; in a CR file the first LF outside
 * quotes. Lines count line ends and LFs inside quotes.
 */
function lineEnds(text: string): LineEnds {
  let line = 1;
  let fieldStart = true;
  let quoted = false;
  let style: "lf" | "cr" | undefined;
  const twin = [...text];
  const at = (i: number, mixed: boolean): LineEnds => ({
    problem: { line, byte: Buffer.byteLength(text.slice(0, i)), mixed },
    lfTwin: text,
  });
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') i++;
        else quoted = false;
      } else if (c === "\n") line++;
      continue;
    }
    if (c === '"' && fieldStart) {
      quoted = true;
      fieldStart = false;
      continue;
    }
    fieldStart = c === "," || c === "\n";
    if (c === "\r") {
      style ??= text[i + 1] === "\n" ? "lf" : "cr";
      if (style === "lf" && text[i + 1] !== "\n") return at(i, false);
      if (style === "cr") {
        twin[i] = "\n";
        line++;
        fieldStart = true;
      }
    } else if (c === "\n") {
      style ??= "lf";
      if (style === "cr") return at(i, true);
      line++;
    }
  }
  // Spreading a string splits it by code point, so join() restores it exactly.
  return { lfTwin: twin.join("") };
}

describe("CSV line ends: LF, CRLF or CR files; a lone CR in an LF file or an LF in a CR file fails the gate on every read path", () => {
  const paths: Path[] = ["text", "inline", "workers"];

  const cases: Array<[string, string, number, string]> = [
    [
      "one lone CR in an LF file, after multi-byte text",
      "sku,name\nA1,Жук\rA2,y\n",
      2,
      "sku,name\nA1,Жук",
    ],
    ["a CR as the very last byte", "sku,name\nA1,x\r", 2, "sku,name\nA1,x"],
    ["a lone CR right after a closing quote", 'sku,name\nA1,"x"\rA2,y\n', 2, 'sku,name\nA1,"x"'],
    ["a lone CR in text after a closing quote", 'sku,name\nA1,"x"y\rz\n', 2, 'sku,name\nA1,"x"y'],
    [
      "after a quoted line break (it counts as a line)",
      'sku,name\nA1,"a\nb"\rA2,y\n',
      3,
      'sku,name\nA1,"a\nb"',
    ],
    [
      'after an unquoted 5" (a quote inside a field is data)',
      'sku,name\nA1,5" screen\rA2,7"\n',
      2,
      'sku,name\nA1,5" screen',
    ],
    ["a CR before CRLF", "sku,name\r\nA1,x\r\r\nA2,y\r\n", 2, "sku,name\r\nA1,x"],
  ];
  for (const [label, text, line, before] of cases) {
    it(`${label}: LINE_ENDING_LONE_CR with the line and byte, the same on every path`, async () => {
      for (const via of paths) {
        expect({ via, ...(await read(Buffer.from(text), via)) }).toEqual({
          via,
          ok: false,
          reason: "LINE_ENDING_LONE_CR",
          detail: detail(line, Buffer.byteLength(before)),
        });
      }
      expect(lineEnds(text).problem).toEqual({
        line,
        byte: Buffer.byteLength(before),
        mixed: false,
      });
    });
  }

  const mixed: Array<[string, string, number, string]> = [
    ["an LF line in a classic-Mac file", "sku,name\rA1,x\nA2,y\r", 2, "sku,name\rA1,x"],
    ["a CRLF line in a classic-Mac file", "sku,name\rA1,x\r\nA2,y\r", 3, "sku,name\rA1,x\r"],
    [
      "a classic-Mac file ending in LF",
      'sku,name\rA1,"a\nb"\rA2,y\n',
      4,
      'sku,name\rA1,"a\nb"\rA2,y',
    ],
  ];
  for (const [label, text, line, before] of mixed) {
    it(`${label}: LINE_ENDING_LONE_CR naming the LF, the same on every path`, async () => {
      for (const via of paths) {
        for (const cuts of [[], [before.length], [before.length - 1, before.length + 1]]) {
          expect({ via, cuts, ...(await read(Buffer.from(text), via, { cuts })) }).toEqual({
            via,
            cuts,
            ok: false,
            reason: "LINE_ENDING_LONE_CR",
            detail: mixedDetail(line, Buffer.byteLength(before)),
          });
        }
      }
      expect(lineEnds(text).problem).toEqual({
        line,
        byte: Buffer.byteLength(before),
        mixed: true,
      });
    });
  }

  it("a classic-Mac (CR) file reads like its LF twin on every path, whatever the chunks", async () => {
    const body = [
      "sku,name",
      'A1,"до\rпосле"',
      'A2,"до\r\nпосле"',
      'A3,"до\nпосле"',
      "A4,Жук",
      'A5,5" screen',
      'A6,"x"',
      "A7,x",
    ];
    const cr = `${body.join("\r")}\r`;
    const twin = await read(Buffer.from(lineEnds(cr).lfTwin), "text");
    expect(twin.ok).toBe(true);
    const facts = twin.ok
      ? twin.facts
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l))
      : [];
    // Data keeps its line breaks; an LF inside quotes counts as a line, as in an LF file.
    expect(facts.map((f) => [f.payload.name, f.row_number])).toEqual([
      ["до\rпосле", 2],
      ["до\r\nпосле", 3],
      ["до\nпосле", 5],
      ["Жук", 7],
      ['5" screen', 8],
      ["x", 9],
      ["x", 10],
    ]);
    const bytes = Buffer.from(cr);
    const ends = [...bytes.keys()].filter((i) => bytes[i] === 13);
    for (const via of paths) {
      // Cut right after each record-ending CR (the next byte decides) and at random places.
      for (const cuts of [[], ends.map((i) => i + 1), [1, 9, 10, 11, 40]]) {
        expect({ via, cuts, ...(await read(bytes, via, { cuts })) }).toEqual({
          via,
          cuts,
          ...twin,
        });
      }
    }
    // Without a final line end, and with a BOM.
    const noEnd = await read(Buffer.from(cr.slice(0, -1)), "inline");
    expect(noEnd).toEqual(twin);
    for (const via of paths) {
      expect(await read(encodeText(cr, "utf-8", true), via)).toEqual(twin);
    }
  });

  it("a classic-Mac file in windows-1251 or UTF-16 reads like its LF twin", async () => {
    const cr = 'sku,name\rA1,Жук\rA2,"до\rпосле"\r';
    const twin = await read(Buffer.from(lineEnds(cr).lfTwin), "text");
    expect(twin.ok).toBe(true);
    const cp1251 = cfg({ encoding: "windows-1251" });
    for (const via of paths) {
      expect(await read(encodeText(cr, "windows-1251"), via, { config: cp1251 })).toEqual(twin);
    }
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(cr, "utf16le")]);
    const cuts = [2 + 2 * 9, 2 + 2 * 9 + 1];
    expect(await read(utf16, "inline", { cuts, config: cfg({ encoding: "utf-16le" }) })).toEqual(
      twin,
    );
    const mixedUtf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from("sku,name\rA1,x\nA2,y\r", "utf16le"),
    ]);
    expect(
      await read(mixedUtf16, "inline", { config: cfg({ encoding: "utf-16le" }) }),
    ).toMatchObject({ reason: "LINE_ENDING_LONE_CR", detail: mixedDetail(2, 2 + 2 * 13) });
  });

  it("byte offsets count the file's bytes: UTF-8 BOM, windows-1251, UTF-16LE", async () => {
    const text = "sku,name\nA1,Жук\rA2,y\n";
    const bom = encodeText(text, "utf-8", true);
    for (const via of paths) {
      expect(await read(bom, via)).toMatchObject({ detail: detail(2, 3 + 18) });
    }
    const cp1251 = encodeText(text, "windows-1251");
    for (const via of paths) {
      expect(await read(cp1251, via, { config: cfg({ encoding: "windows-1251" }) })).toMatchObject({
        detail: detail(2, 15),
      });
    }
    // UTF-16 is read by the text path whatever the settings say.
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    expect(await read(utf16, "inline", { config: cfg({ encoding: "utf-16le" }) })).toMatchObject({
      reason: "LINE_ENDING_LONE_CR",
      detail: detail(2, 2 + 2 * 15),
    });
  });

  it("ENCODING_INVALID names the file, the line and the byte offset, the same on every path", async () => {
    const rows = Array.from({ length: 400 }, (_, i) => `S${i},Молоток ${i}`);
    const cases: Array<[string, Buffer, number]> = [];
    for (const [line, bad] of [
      [1, Buffer.from([0xff])],
      [2, Buffer.from([0xd0, 0x2c])],
      [301, Buffer.from([0xed, 0xa0, 0x80])],
    ] as const) {
      const lines = ["sku,name", ...rows].map((l) => Buffer.from(`${l}\n`));
      const at = Buffer.concat(lines.slice(0, line - 1)).length + 2;
      const target = lines[line - 1]!;
      lines[line - 1] = Buffer.concat([target.subarray(0, 2), bad, target.subarray(2)]);
      cases.push([`line ${line}`, Buffer.concat(lines), at]);
      // With a BOM the offset still counts from the file's first byte.
      cases.push([
        `line ${line}, BOM`,
        Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), ...lines]),
        at + 3,
      ]);
    }
    for (const [label, bytes, at] of cases) {
      for (const via of paths) {
        // Worker threads start slowly: one chunking there.
        const chunkings = via === "workers" ? [[7, 1000, 5000]] : [[], [at - 1, at + 1]];
        for (const cuts of chunkings) {
          const line = Number(/line (\d+)/.exec(label)![1]);
          expect(await read(bytes, via, { cuts }), `${label} via ${via} cut at ${cuts}`).toEqual({
            ok: false,
            reason: "ENCODING_INVALID",
            detail: `${KEY}: the file is not valid utf-8 text at line ${line} (byte offset ${at}) (encoding: utf-8)`,
          });
        }
      }
    }
  });

  it("LF, CRLF and line breaks inside quotes (CR, LF, CRLF, CR CR) pass, the same on every path", async () => {
    const body = (eol: string) =>
      [
        "sku,name",
        'A1,"до\rпосле"',
        'A2,"до\r\nпосле"',
        'A3,"до\nпосле"',
        'A4,"x\r\ry"',
        'A5,5" screen',
        "A6,x",
      ]
        .join(eol)
        .concat(eol);
    const lf = await read(Buffer.from(body("\n")), "text");
    expect(lf.ok).toBe(true);
    const facts = lf.ok
      ? lf.facts
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l))
      : [];
    expect(facts.map((f) => [f.payload.name, f.row_number])).toEqual([
      ["до\rпосле", 2],
      ["до\r\nпосле", 3],
      ["до\nпосле", 5],
      ["x\r\ry", 7],
      ['5" screen', 8],
      ["x", 9],
    ]);
    for (const eol of ["\n", "\r\n"]) {
      for (const via of paths) {
        expect({ via, eol, ...(await read(Buffer.from(body(eol)), via)) }).toEqual({
          via,
          eol,
          ...lf,
        });
      }
    }
  });

  it("an XLSX cell holding a CR is unaffected", async () => {
    const file = path.join(root, "cr.xlsx");
    await writeXlsxFile(file, [
      { name: "S", rows: [{ sku: "A1", name: "до\rпосле", qty: 1, price: "1.00", category: "c" }] },
    ]);
    const out = await read(readFileSync(file), "inline", { config: cfg({ format: "xlsx" }) });
    // XML turns the CR into LF; the workbook is read, not held to CSV line ends.
    expect(out.ok && JSON.parse(out.facts).payload).toEqual({ sku: "A1", name: "до\nпосле" });
  });

  // 400 file reads through the real storage: a few seconds alone, far more on a busy CI machine.
  it("any text cut into any chunks: both paths agree with the reference (property)", {
    timeout: 180_000,
  }, async () => {
    const field = fc
      .array(fc.constantFrom("a", "Ж", ",", '"', '""', "\r", "\n", "\r\n", " "), { maxLength: 5 })
      .map((a) => a.join(""));
    const row = fc.array(field, { minLength: 1, maxLength: 3 }).map((f) => f.join(","));
    const eol = fc.constantFrom("\n", "\n", "\r\n", "\r");
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(row, eol), { maxLength: 6 }),
        eol,
        fc.array(fc.nat(), { maxLength: 5 }),
        async (rows, headerEol, cuts) => {
          const text = `sku,name${headerEol}${rows.map(([r, e]) => r + e).join("")}`;
          const bytes = Buffer.from(text);
          const text1 = await read(bytes, "text", { cuts });
          const inline = await read(bytes, "inline", { cuts });
          const { problem, lfTwin } = lineEnds(text);
          if (problem) {
            const { line, byte } = problem;
            expect(text1).toEqual({
              ok: false,
              reason: "LINE_ENDING_LONE_CR",
              detail: problem.mixed ? mixedDetail(line, byte) : detail(line, byte),
            });
          } else {
            expect(text1.ok || text1.reason).not.toBe("LINE_ENDING_LONE_CR");
            // A CR file reads exactly like its LF twin.
            if (lfTwin !== text) expect(text1).toEqual(await read(Buffer.from(lfTwin), "text"));
          }
          if (text1.ok || text1.reason === "LINE_ENDING_LONE_CR") expect(inline).toEqual(text1);
          else expect(inline).toMatchObject({ ok: false, reason: text1.reason });
        },
      ),
      { numRuns: 200 },
    );
  });
});
