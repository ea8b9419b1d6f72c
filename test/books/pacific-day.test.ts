import { describe, expect, it } from "vitest";
import { pacificDay } from "../../src/pipelines/books/client/pacific-day.ts";

describe("pacificDay", () => {
  it("turns over at midnight Los Angeles time, PST and PDT alike", () => {
    expect(pacificDay(new Date("2026-01-15T07:59:59.999Z"))).toBe("2026-01-14");
    expect(pacificDay(new Date("2026-01-15T08:00:00.000Z"))).toBe("2026-01-15");
    expect(pacificDay(new Date("2026-07-01T06:59:59.999Z"))).toBe("2026-06-30");
    expect(pacificDay(new Date("2026-07-01T07:00:00.000Z"))).toBe("2026-07-01");
  });
});
