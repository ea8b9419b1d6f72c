import { describe, expect, it } from "vitest";
import { normalizeEtag } from "./blob-etag.ts";
import {
  compareBlobKeys,
  isValidBlobKey,
  MAX_BLOB_KEY_BYTES,
  validateBlobKey,
  validateBlobPrefix,
} from "./blob-key.ts";
import { InvalidBlobKeyError } from "./blob-store.ts";

describe("validateBlobKey", () => {
  it.each([
    "a",
    "a/b/c.json",
    "..a/b..",
    ".hidden",
    "a.b/.c",
    "日本/データ.json",
    "with space/and+plus=@",
    "C/x",
    "ab:c/d:e", // a colon is only refused as a drive letter (one letter + ":") at the start
    "😀/ok",
    "a".repeat(MAX_BLOB_KEY_BYTES),
  ])("accepts %j", (key) => {
    expect(() => validateBlobKey(key)).not.toThrow();
    expect(isValidBlobKey(key)).toBe(true);
  });

  it.each([
    ["", /empty key/],
    ["/abs", /absolute/],
    ["C:\\x", /drive-letter/],
    ["c:/x", /drive-letter/],
    ["C:x", /drive-letter/],
    ["a\\b", /backslash/],
    ["a\0b", /control/],
    ["a\nb", /control/],
    ["a\u007fb", /control/],
    ["a\u0085b", /control/],
    ["a\ud800b", /surrogate/],
    ["a//b", /empty path segment/],
    ["a/", /empty path segment/],
    ["..", /'\.\.'/],
    ["../x", /'\.\.'/],
    ["a/../b", /'\.\.'/],
    ["./a", /'\.'/],
    ["a/.", /'\.'/],
    ["é".repeat(MAX_BLOB_KEY_BYTES / 2 + 1), /longer than/],
  ])("refuses %j", (key, reason) => {
    expect(() => validateBlobKey(key)).toThrow(InvalidBlobKeyError);
    expect(() => validateBlobKey(key)).toThrow(reason);
    expect(isValidBlobKey(key)).toBe(false);
  });

  it("refuses non-strings from untyped callers", () => {
    expect(() => validateBlobKey(42 as unknown as string)).toThrow(InvalidBlobKeyError);
  });
});

describe("validateBlobPrefix", () => {
  it.each(["", "a/", "a/b/", "日本/"])("accepts %j", (prefix) => {
    expect(() => validateBlobPrefix(prefix)).not.toThrow();
  });

  it.each(["a", "/", "//", "a//", "../", "/a/", "a/../", "a\\/", "a\0/"])(
    "refuses %j",
    (prefix) => {
      expect(() => validateBlobPrefix(prefix)).toThrow(InvalidBlobKeyError);
    },
  );
});

describe("compareBlobKeys", () => {
  it("orders by UTF-8 bytes like S3, not by UTF-16 code units", () => {
    // U+FF5E is one UTF-16 unit above the surrogates of U+1F600, but below it in UTF-8.
    const keys = ["😀", "～", "a/b", "a-c", "a"];
    expect([...keys].sort(compareBlobKeys)).toEqual(["a", "a-c", "a/b", "～", "😀"]);
  });
});

describe("normalizeEtag", () => {
  it.each([
    ['"abc123"', '"abc123"'],
    ["abc123", '"abc123"'],
    ['W/"abc123"', '"abc123"'],
    ["&quot;abc123&quot;", '"abc123"'],
    ['"ABC123"', '"abc123"'],
  ])("%s → %s", (raw, expected) => {
    expect(normalizeEtag(raw)).toBe(expected);
  });
});
