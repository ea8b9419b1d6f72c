import { describe, expect, it } from "vitest";
import {
  CanonicalJsonError,
  canonicalJson,
  compareCodePoints,
  writeCanonicalJson,
} from "./canonical-json.ts";
import { JsonNumber } from "./json-value.ts";
import { parseJsonLossless } from "./lossless-json.ts";

function canonicalOfText(text: string): string {
  return canonicalJson(parseJsonLossless(text));
}

describe("canonicalJson", () => {
  it("writes compact JSON with sorted keys", () => {
    expect(canonicalJson({ b: [1, true, null], a: { d: "x", c: 0.5 } })).toBe(
      '{"a":{"c":0.5,"d":"x"},"b":[1,true,null]}',
    );
    expect(canonicalJson([])).toBe("[]");
    expect(canonicalJson({})).toBe("{}");
    expect(canonicalJson([[], {}, [{}]])).toBe("[[],{},[{}]]");
  });

  it("formats JsonNumber by Python's lexeme semantics", () => {
    expect(canonicalOfText("[4.0, 1E+2, 1e-7, 0.00001, 1e16, 1e400, -0, -0.0, 1.0e0]")).toBe(
      "[4.0,100.0,1e-07,1e-05,1e+16,Infinity,0,-0.0,1.0]",
    );
    expect(canonicalOfText("[12345678901234567890123, 123456789012345678.0]")).toBe(
      "[12345678901234567890123,1.2345678901234568e+17]",
    );
    expect(canonicalJson(new JsonNumber("1e005"))).toBe("100000.0");
  });

  it("formats JS numbers: safe integers as ints, everything else as Python floats", () => {
    expect(canonicalJson([3, -7, 0, -0, 0.5, 1e-7])).toBe("[3,-7,0,0,0.5,1e-07]");
    // 2^53 and beyond cannot be known to be exact integers, so they print as floats.
    expect(canonicalJson([2 ** 53 - 1, 2 ** 53, 1e16])).toBe(
      "[9007199254740991,9007199254740992.0,1e+16]",
    );
    expect(canonicalJson([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])).toBe(
      "[NaN,Infinity,-Infinity]",
    );
  });

  it("formats bigint as exact integers", () => {
    expect(canonicalJson([12345678901234567890123n, -5n, 0n])).toBe(
      "[12345678901234567890123,-5,0]",
    );
  });

  it("sorts keys by code point, not by UTF-16 unit", () => {
    // U+1F600 is the surrogate pair D83D DE00, which JS's default order puts before U+FFFF.
    const value = { "\uffff": 1, "😀": 2, "\ue000": 3, z: 4, "": 5, "\u00e9": 6 };
    expect(canonicalJson(value)).toBe('{"":5,"z":4,"é":6,"\ue000":3,"\uffff":1,"😀":2}');
    expect(["😀", "\uffff"].sort()).toEqual(["😀", "\uffff"]);
    expect(["😀", "\uffff"].sort(compareCodePoints)).toEqual(["\uffff", "😀"]);
  });

  it("gives the same text for keys it has seen before (its key cache changes nothing)", () => {
    const value = { b: [{ "\uffff": 1, "😀": 2, a: 3 }], a: { z: 1, "\u00e9": 2 }, 'x"y': null };
    const first = canonicalJson(value);
    expect(first).toBe('{"a":{"z":1,"é":2},"b":[{"a":3,"\uffff":1,"😀":2}],"x\\"y":null}');
    for (let i = 0; i < 3; i++) expect(canonicalJson(value)).toBe(first);
    expect(() => canonicalJson({ a: 1, "x\udc00": 2 })).toThrow(/lone surrogate/);
  });

  it("compares code points with prefixes and equal strings", () => {
    expect(compareCodePoints("a", "a")).toBe(0);
    expect(compareCodePoints("a", "ab")).toBeLessThan(0);
    expect(compareCodePoints("𐀀", "\ud7ff")).toBeGreaterThan(0);
    expect(compareCodePoints("𐀀", "𐀁")).toBeLessThan(0);
    expect(compareCodePoints("\u{10ffff}", "\u{10000}")).toBeGreaterThan(0);
  });

  it("escapes strings like Python with ensure_ascii=False", () => {
    expect(canonicalJson('"\\/\b\f\n\r\t')).toBe('"\\"\\\\/\\b\\f\\n\\r\\t"');
    expect(canonicalJson("\u0000\u0001\u001f")).toBe('"\\u0000\\u0001\\u001f"');
    expect(canonicalJson("\u000b\u001b")).toBe('"\\u000b\\u001b"');
    expect(canonicalJson("\u007f\u0080\u2028\u2029é😀\uffff")).toBe(
      '"\u007f\u0080\u2028\u2029é😀\uffff"',
    );
  });

  it("keeps a __proto__ key as data and lets the last duplicate win", () => {
    expect(canonicalOfText('{"__proto__": {"x": 1}, "a": 2}')).toBe('{"__proto__":{"x":1},"a":2}');
    expect(canonicalOfText('{"a": 1, "b": 2, "a": 3}')).toBe('{"a":3,"b":2}');
    const viaDefine = {};
    Object.defineProperty(viaDefine, "__proto__", { value: 1, enumerable: true });
    expect(canonicalJson(viaDefine)).toBe('{"__proto__":1}');
  });

  it("skips undefined members like JSON.stringify", () => {
    expect(canonicalJson({ a: undefined, b: 1, c: undefined })).toBe('{"b":1}');
    expect(canonicalJson({ a: undefined })).toBe("{}");
  });

  it("rejects lone surrogates in values and keys", () => {
    expect(() => canonicalOfText('{"a": ["ok", "\\ud800"]}')).toThrow(
      /Cannot encode \$\.a\[1\] as canonical JSON: lone surrogate U\+D800 at index 0/,
    );
    expect(() => canonicalJson({ "x\udc00": 1 })).toThrow(/lone surrogate U\+DC00 at index 1/);
    expect(() => canonicalJson("\ude00\ud83d")).toThrow(CanonicalJsonError);
  });

  it.each([
    [{ a: () => 1 }, "$.a", "a function"],
    [{ a: [1, Symbol("s")] }, "$.a[1]", "a symbol"],
    [{ when: new Date(0) }, "$.when", "a Date"],
    [[new Map()], "$[0]", "a Map"],
    [{ "odd key": new Set() }, '$["odd key"]', "a Set"],
    [[1, undefined], "$[1]", "undefined"],
    [undefined, "$", "undefined"],
    [{ n: new Number(1) }, "$.n", "a Number"],
  ])("rejects unsupported value %# naming its path", (value, path, what) => {
    let error: unknown;
    try {
      canonicalJson(value);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toBeInstanceOf(CanonicalJsonError);
    expect((error as CanonicalJsonError).path).toBe(path);
    expect((error as Error).message).toContain(what);
  });

  it("rejects cycles but allows shared references", () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
    const cyclic: Record<string, unknown> = { a: [1] };
    (cyclic.a as unknown[]).push(cyclic);
    expect(() => canonicalJson(cyclic)).toThrow(/\$\.a\[1\].*circular reference/);
  });

  it("handles very deep values without using the call stack", () => {
    const depth = 200_000;
    let value: unknown = 0;
    for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { k: value };
    const text = canonicalJson(value);
    expect(text.length).toBe(1 + depth * 2 + (depth / 2) * 4);
    expect(text.startsWith('{"k":[{"k":[')).toBe(true);
  });
});

describe("writeCanonicalJson", () => {
  it("streams the same text in token-aligned chunks", () => {
    const rows = Array.from({ length: 5000 }, (_, i) => ({
      id: i,
      text: `é😀 ${i}`,
      ok: i % 2 === 0,
    }));
    const chunks: string[] = [];
    writeCanonicalJson(rows, (chunk) => chunks.push(chunk));
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.join("")).toBe(canonicalJson(rows));
    for (const chunk of chunks) {
      // A chunk never ends inside a surrogate pair, so it encodes to UTF-8 on its own.
      expect(Buffer.from(chunk, "utf8").toString("utf8")).toBe(chunk);
    }
  });

  it("emits a small value as one chunk", () => {
    const chunks: string[] = [];
    writeCanonicalJson({ a: 1 }, (chunk) => chunks.push(chunk));
    expect(chunks).toEqual(['{"a":1}']);
  });
});
