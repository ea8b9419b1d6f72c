import { describe, expect, it } from "vitest";
import { isTempName, tempNameFor, tempWriterPid } from "./fs-temp-name.ts";

describe("tempNameFor", () => {
  it("names every temp file apart, past the pool of random digits it draws at once", () => {
    const names = Array.from({ length: 2000 }, () => tempNameFor("hash=abc.json"));
    expect(new Set(names).size).toBe(2000);
    const digits = new Set(names.map((n) => /\.([0-9a-f]{16})\.tmp$/.exec(n)?.[1]));
    expect(digits.size).toBe(2000);
    for (const n of names) {
      expect(n).toMatch(/^\.hash=abc\.json\.pid\d+\.[0-9a-f]{16}\.tmp$/);
      expect(isTempName(n)).toBe(true);
      expect(tempWriterPid(n)).toBe(process.pid);
    }
  });

  it("leaves the name out when it is too long to embed", () => {
    const name = tempNameFor("x".repeat(250));
    expect(name).toMatch(/^\.pid\d+\.[0-9a-f]{16}\.tmp$/);
    expect(Buffer.byteLength(tempNameFor("x".repeat(255 - 22 - `pid${process.pid}.`.length)))).toBe(
      255,
    );
    expect(isTempName(name)).toBe(true);
    expect(tempWriterPid(name)).toBe(process.pid);
    expect(isTempName("hash=abc.json")).toBe(false);
  });
});

describe("tempWriterPid", () => {
  it("reads the writer's pid, and nothing from names written before it was recorded", () => {
    expect(tempWriterPid(".hash=abc.json.pid4242.0123456789abcdef.tmp")).toBe(4242);
    expect(tempWriterPid(".pid7.0123456789abcdef.tmp")).toBe(7);
    expect(tempWriterPid(".hash=abc.json.0123456789abcdef.tmp")).toBeUndefined();
    expect(tempWriterPid(".0123456789abcdef.tmp")).toBeUndefined();
    expect(isTempName(".hash=abc.json.0123456789abcdef.tmp")).toBe(true);
  });
});
