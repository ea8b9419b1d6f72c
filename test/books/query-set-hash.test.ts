import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  computeQuerySetHash,
  shortHash,
} from "../../src/pipelines/books/stages/collect/query-set-hash.ts";

describe("computeQuerySetHash", () => {
  it("is the full SHA-256 of the trimmed, whitespace-collapsed, sorted queries joined by \\n", () => {
    const expected = createHash("sha256")
      .update("intitle:consulting\nsubject:management")
      .digest("hex");
    expect(computeQuerySetHash(["subject:management", "intitle:consulting"])).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it("ignores order, outer whitespace and runs of inner whitespace", () => {
    const a = computeQuerySetHash(["intitle:consulting", "subject:management"]);
    expect(computeQuerySetHash(["  subject:management\t", "intitle:consulting"])).toBe(a);
    expect(computeQuerySetHash(["intitle:the   trusted\n advisor"])).toBe(
      computeQuerySetHash(["intitle:the trusted advisor"]),
    );
  });

  it("does not lowercase: case is meaningful to Google", () => {
    expect(computeQuerySetHash(["intitle:Go"])).not.toBe(computeQuerySetHash(["intitle:go"]));
  });

  it("changes when a query is added, removed or edited", () => {
    const base = computeQuerySetHash(["a", "b"]);
    expect(computeQuerySetHash(["a"])).not.toBe(base);
    expect(computeQuerySetHash(["a", "b", "c"])).not.toBe(base);
    expect(computeQuerySetHash(["a", "bb"])).not.toBe(base);
  });

  it("shortHash keeps the first 16 characters (logs only)", () => {
    const h = computeQuerySetHash(["a"]);
    expect(shortHash(h)).toBe(h.slice(0, 16));
    expect(shortHash(h)).toHaveLength(16);
  });
});
