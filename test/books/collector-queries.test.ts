// The collector with several queries sharing one cursor, and against the fake's quirks.
import { describe, expect, it } from "vitest";
import { startBooksFake } from "./support/books-harness.ts";
import { collectFromFake } from "./support/collect-harness.ts";

const Q = "intitle:consulting";
describe("collector with several queries (one shared cursor)", () => {
  const Q2 = "subject:management";

  it("asks every query for the same page, splitting maxPerRun evenly", async () => {
    const { fake, server } = await startBooksFake({ sizes: { [Q]: 500, [Q2]: 500 } });
    const { result, logs } = await collectFromFake(server, { queries: [Q2, Q], maxPerRun: 80 });
    // Sorted normalised order: intitle:… before subject:…
    expect(fake.calls.map((c) => [c.q, c.startIndex, c.maxResults])).toEqual([
      [Q, 0, 40],
      [Q2, 0, 40],
    ]);
    expect(result.cursorState).toEqual({
      startIndex: 40,
      isExhausted: false,
      stopReason: "max_per_run",
    });
    expect(logs[0]).toBe(
      "[google-books][job-name] Page 1: startIndex=0, returned=40, totalItems=500 (query 1/2: intitle:consulting)",
    );
  });

  it("drops a query once it is exhausted and lets the others go on", async () => {
    const { fake, server } = await startBooksFake({ sizes: { [Q]: 50, [Q2]: 500 } });
    const { result } = await collectFromFake(server, {
      queries: [Q, Q2],
      maxPerRun: 80,
      cursor: { startIndex: 40, isExhausted: false },
    });
    expect(fake.calls.map((c) => [c.q, c.startIndex, c.maxResults, c.returned])).toEqual([
      [Q, 40, 40, 10], // 40 + 10 >= 50: exhausted, out for the rest of the run
      [Q2, 40, 40, 40],
      [Q2, 80, 30, 30], // the budget left (30) goes to the remaining query
    ]);
    expect(result.cursorState).toEqual({
      startIndex: 110,
      isExhausted: false,
      stopReason: "max_per_run",
    });
  });

  it("is exhausted only when every query is, at the furthest position reached", async () => {
    const { server } = await startBooksFake({ sizes: { [Q]: 30, [Q2]: 70 } });
    const { result, logs } = await collectFromFake(server, { queries: [Q, Q2], maxPerRun: 400 });
    expect(result.cursorState).toEqual({
      startIndex: 70,
      isExhausted: true,
      stopReason: "exhausted",
    });
    expect(new Set(result.items.map((i) => i.volume.id)).size).toBeLessThanOrEqual(100);
    expect(logs.at(-1)).toMatch(/Exhausted: startIndex=70 >= totalItems=70 /);
  });

  it("keeps the round's startIndex when a later query of the round fails", async () => {
    const { server } = await startBooksFake({ sizes: { [Q]: 500, [Q2]: 500 } });
    server.faults.set({ statusSequence: [200, 200, 200, 500] });
    const { result } = await collectFromFake(server, { queries: [Q, Q2], maxPerRun: 400 });
    // Round 1 moved both to 40; round 2 fetched Q at 40, then Q2 failed: Q2 is still at 40.
    expect(result.cursorState).toEqual({ startIndex: 40, isExhausted: false, stopReason: "error" });
  });

  it("stops on max_per_run when what is left cannot give each active query one item", async () => {
    const { fake, server } = await startBooksFake({
      sizes: { [Q]: 500, [Q2]: 500, "inauthor:x": 500 },
    });
    const { result } = await collectFromFake(server, {
      queries: [Q, Q2, "inauthor:x"],
      maxPerRun: 80,
    });
    expect(fake.calls.map((c) => c.maxResults)).toEqual([26, 26, 26]);
    expect(result.items).toHaveLength(78);
    expect(result.cursorState).toEqual({
      startIndex: 26,
      isExhausted: false,
      stopReason: "max_per_run",
    });
  });
});

describe("collector against the fake's real-world quirks", () => {
  it("survives drifting totals, short pages and repeats until the ~1,000 cap, never asking > 40", async () => {
    const { fake, server } = await startBooksFake({
      sizes: { [Q]: 1300 },
      quirks: { drift: true, shortPages: true, repeats: true },
    });
    let cursor = { startIndex: 0, isExhausted: false };
    const seen = new Set<string>();
    const starts: number[] = [];
    for (let run = 0; run < 20 && !cursor.isExhausted; run++) {
      const { result } = await collectFromFake(server, { queries: [Q], maxPerRun: 200, cursor });
      for (const item of result.items) seen.add(item.volume.id);
      expect(result.cursorState.startIndex).toBeGreaterThanOrEqual(cursor.startIndex);
      starts.push(result.cursorState.startIndex);
      cursor = result.cursorState;
    }
    expect(cursor.isExhausted).toBe(true);
    expect(cursor.startIndex).toBeGreaterThan(950);
    expect(cursor.startIndex).toBeLessThan(1050);
    expect(Math.max(...fake.calls.map((c) => c.maxResults))).toBeLessThanOrEqual(40);
    expect(fake.calls.some((c) => c.returned > 0 && c.returned < c.maxResults)).toBe(true);
    expect(seen.size).toBeGreaterThan(800); // shared and repeated volumes collapse by id
  });
});
