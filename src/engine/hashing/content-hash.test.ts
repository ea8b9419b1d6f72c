import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.ts";
import { contentHash, contentHashOfJsonText, sha256Hex } from "./content-hash.ts";

describe("sha256Hex", () => {
  it("hashes UTF-8 strings and bytes", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect(sha256Hex(new TextEncoder().encode("é😀"))).toBe(sha256Hex("é😀"));
  });

  it("refuses lone surrogates instead of silently hashing U+FFFD", () => {
    expect(() => sha256Hex("a\ud800")).toThrow(/lone surrogate at index 1/);
  });
});

describe("contentHash", () => {
  // Reference values computed with Python 3.11:
  // hashlib.sha256(json.dumps(json.loads(t), ensure_ascii=False, separators=(",", ":"),
  //   sort_keys=True).encode("utf-8")).hexdigest()
  it("matches Python for a known document", () => {
    expect(contentHashOfJsonText('{"b":1,"a":[1.0,2]}')).toBe(
      "bb1e5855a74b2579ac3db9b82084f6ff341604610cbf82676c2f8ebf2965c71d",
    );
  });

  it("is the SHA-256 of the canonical JSON", () => {
    const expected = createHash("sha256").update('{"a":[1,"é"],"b":null}', "utf8").digest("hex");
    expect(contentHash({ b: null, a: [1, "é"] })).toBe(expected);
    expect(contentHashOfJsonText(' { "b" : null , "a" : [ 1 , "\\u00e9" ] } ')).toBe(expected);
  });

  it("hashes large values (streamed in chunks) like the whole canonical text", () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => ({ i, s: `😀é\u0001${i}`, f: i / 3 }));
    const expected = createHash("sha256").update(canonicalJson(rows), "utf8").digest("hex");
    expect(contentHash(rows)).toBe(expected);
  });

  it("distinguishes Python ints from floats the way Python does", () => {
    expect(contentHashOfJsonText("1")).not.toBe(contentHashOfJsonText("1.0"));
    expect(contentHashOfJsonText("1.0")).toBe(contentHashOfJsonText("1e0"));
    expect(contentHashOfJsonText("-0")).toBe(contentHashOfJsonText("0"));
  });

  it("rejects lone surrogates", () => {
    expect(() => contentHashOfJsonText('"\\udfff"')).toThrow(/lone surrogate U\+DFFF/);
  });
});
