import v8 from "node:v8";
import { afterEach, describe, expect, it, vi } from "vitest";
import { withoutPretenuring } from "../../../src/pipelines/snapshots/stages/parse/extract/without-pretenuring.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("withoutPretenuring", () => {
  it("turns pretenuring off for overlapping reads and back on when the last one ends, failed or not", async () => {
    const flags = vi.spyOn(v8, "setFlagsFromString");
    let finishFirst!: () => void;
    const first = withoutPretenuring(
      () => new Promise<string>((r) => (finishFirst = () => r("a"))),
    );
    const second = withoutPretenuring(async () => {
      throw new Error("bad workbook");
    });
    await expect(second).rejects.toThrow("bad workbook");
    expect(flags.mock.calls).toEqual([["--no-allocation-site-pretenuring"]]);
    finishFirst();
    expect(await first).toBe("a");
    expect(flags.mock.calls).toEqual([
      ["--no-allocation-site-pretenuring"],
      ["--allocation-site-pretenuring"],
    ]);
  });
});
