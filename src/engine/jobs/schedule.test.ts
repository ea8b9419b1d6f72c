import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.ts";
import { nextOccurrence, validateSchedule } from "./schedule.ts";

describe("cron schedules", () => {
  it("accepts Ghost's seconds-and-minute-offset form: second 17 of minutes 2, 7, 12, …", () => {
    expect(() => validateSchedule("17 2/5 * * * *", "UTC")).not.toThrow();
    const fires: string[] = [];
    let at = new Date("2026-11-25T10:00:00Z");
    for (let i = 0; i < 3; i++) {
      at = nextOccurrence("17 2/5 * * * *", "UTC", at)!;
      fires.push(at.toISOString());
    }
    expect(fires).toEqual([
      "2026-11-25T10:02:17.000Z",
      "2026-11-25T10:07:17.000Z",
      "2026-11-25T10:12:17.000Z",
    ]);
  });

  it("reads a numeric-start stepping in a five-part pattern and in a list the same way", () => {
    const from = new Date("2026-11-25T10:00:00Z");
    expect(nextOccurrence("2/5 * * * *", "UTC", from)?.toISOString()).toBe(
      "2026-11-25T10:02:00.000Z",
    );
    // Hours 1, 3 and 23: after 10:00 the next is 23:00.
    expect(nextOccurrence("0 1,3/20 * * *", "UTC", from)?.toISOString()).toBe(
      "2026-11-25T23:00:00.000Z",
    );
  });

  it("still refuses values out of range, naming the expression", () => {
    expect(() => validateSchedule("17 61/5 * * * *", "UTC")).toThrow(UsageError);
    expect(() => validateSchedule("61 * * * *", "UTC")).toThrow(/schedule "61 \* \* \* \*"/);
  });
});
