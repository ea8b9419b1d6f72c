import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CsvRecordParser,
  CsvSyntaxError,
} from "../../../src/pipelines/snapshots/stages/parse/extract/csv-records.ts";

type Rec = { fields: string[]; line: number; malformed: boolean };

function parseAll(chunks: string[], delimiter = ",", quote = '"'): Rec[] {
  const out: Rec[] = [];
  const p = new CsvRecordParser(delimiter, quote, (fields, line, malformed) =>
    out.push({ fields: [...fields], line, malformed }),
  );
  for (const c of chunks) p.push(c);
  p.end();
  return out;
}

describe("CSV record parser", () => {
  it("reads quoted fields with delimiters, doubled quotes and line breaks", () => {
    const text = 'sku,name,qty\nA1,"Молоток, слесарный ""Зубр""",5\r\nA2,"две\nстроки",7\n';
    expect(parseAll([text])).toEqual([
      { fields: ["sku", "name", "qty"], line: 1, malformed: false },
      { fields: ["A1", 'Молоток, слесарный "Зубр"', "5"], line: 2, malformed: false },
      { fields: ["A2", "две\nстроки", "7"], line: 3, malformed: false },
    ]);
  });

  it("numbers records by the line they start on, skipping blank lines", () => {
    const recs = parseAll(["h\n\na\n\n\nb"]);
    expect(recs.map((r) => [r.fields[0], r.line])).toEqual([
      ["h", 1],
      ["a", 3],
      ["b", 6],
    ]);
  });

  it("keeps empty fields, trailing delimiters and a last line without newline", () => {
    expect(parseAll(["a,,c,\n,"]).map((r) => r.fields)).toEqual([
      ["a", "", "c", ""],
      ["", ""],
    ]);
  });

  it("records end at LF or CRLF; a lone CR is data", () => {
    expect(parseAll(["a,b\r\nc,d\re\n"]).map((r) => r.fields)).toEqual([
      ["a", "b"],
      ["c", "d\re"],
    ]);
    expect(parseAll(['"x"\r\ny\r\n']).map((r) => [r.fields, r.line])).toEqual([
      [["x"], 1],
      [["y"], 2],
    ]);
  });

  it("flags text after a closing quote instead of guessing", () => {
    const [r] = parseAll(['"ab"c,d\n']);
    expect(r).toEqual({ fields: ["abc", "d"], line: 1, malformed: true });
  });

  it("an unterminated quoted field is a syntax error with its line", () => {
    expect(() => parseAll(['a\n"open,b\nc\n'])).toThrow(CsvSyntaxError);
    expect(() => parseAll(['a\n"open,b\nc\n'])).toThrow(/line 2/);
  });

  it("supports other delimiters and quote characters", () => {
    expect(parseAll(["a;'x;y'\n"], ";", "'").map((r) => r.fields)).toEqual([["a", "x;y"]]);
  });

  it("gives the same records however the text is cut into chunks", () => {
    const field = fc.oneof(
      fc.string({ maxLength: 6 }).map((s) => s.replace(/[",\r\n]/g, "")),
      fc.string({ maxLength: 6 }).map((s) => `"${s.replace(/"/g, '""')}"`),
      fc.constantFrom('"a,b"', '"x\ny"', '"q""q"', "Ж", ""),
    );
    const record = fc.array(field, { minLength: 1, maxLength: 4 }).map((f) => f.join(","));
    fc.assert(
      fc.property(
        fc.array(record, { minLength: 1, maxLength: 8 }),
        fc.constantFrom("\n", "\r\n"),
        fc.array(fc.nat(), { maxLength: 6 }),
        (records, eol, cuts) => {
          const text = records.join(eol) + eol;
          const whole = parseAll([text]);
          const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const chunks: string[] = [];
          let prev = 0;
          for (const p of points) {
            chunks.push(text.slice(prev, p));
            prev = p;
          }
          chunks.push(text.slice(prev));
          expect(parseAll(chunks)).toEqual(whole);
        },
      ),
      { numRuns: 300 },
    );
  });
});
