import { describe, expect, it } from "vitest";
import { formatBytes } from "../../../src/pipelines/snapshots/stages/ingest/byte-size.ts";

describe("formatBytes", () => {
  it.each([
    [0, "0 B"],
    [1023, "1023 B"],
    [1024, "1.0 KiB"],
    [1536, "1.5 KiB"],
    [84_000_000, "80.1 MiB"],
    [2 * 1024 ** 3, "2.0 GiB"],
    [5 * 1024 ** 5, "5120.0 TiB"],
  ])("%d bytes → %s", (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
