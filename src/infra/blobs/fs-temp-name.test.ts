import { describe, expect, it } from "vitest";
import { isTempName, tempNameFor } from "./fs-temp-name.ts";

describe("tempNameFor", () => {
  it("names every temp file apart, past the pool of random digits it draws at once", () => {
    const names = Array.from({ length: 2000 }, () => tempNameFor("hash=abc.json"));
    expect(new Set(names).size).toBe(2000);
    const digits = new Set(names.map((n) => /\.([0-9a-f]{16})\.tmp$/.exec(n)?.[1]));
    expect(digits.size).toBe(2000);
    for (const n of names) {
      expect(n).toMatch(/^\.hash=abc\.json\.[0-9a-f]{16}\.tmp$/);
      expect(isTempName(n)).toBe(true);
    }
  });

  it("leaves the name out when it is too long to embed", () => {
    const name = tempNameFor("x".repeat(250));
    expect(name).toMatch(/^\.[0-9a-f]{16}\.tmp$/);
    expect(isTempName(name)).toBe(true);
    expect(isTempName("hash=abc.json")).toBe(false);
  });
});
