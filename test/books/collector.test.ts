// The collector's paging against the fake Google Books API (real HTTP client).
import { describe, expect, it } from "vitest";
import { shortHash } from "../../src/pipelines/books/stages/collect/query-set-hash.ts";
import { startBooksFake } from "./support/books-harness.ts";
import { collectFromFake, StubQuota } from "./support/collect-harness.ts";

const Q = "intitle:consulting";

describe("collector paging", () => {
  it("pages with several API calls and advances startIndex by the items returned", async () => {
    const { fake, server } = await startBooksFake({ sizes: { [Q]: 500 } });
    const { result, logs } = await collectFromFake(server, { queries: [Q], maxPerRun: 120 });
    expect(fake.calls.map((c) => [c.startIndex, c.maxResults])).toEqual([
      [0, 40],
      [40, 40],
      [80, 40],
    ]);
    expect(result.items).toHaveLength(120);
    expect(result.pages).toBe(3);
    expect(result.cursorState).toEqual({
      startIndex: 120,
      isExhausted: false,
      stopReason: "max_per_run",
    });
    expect(logs).toEqual([
      "[google-books][job-name] Page 1: startIndex=0, returned=40, totalItems=500",
      "[google-books][job-name] Page 2: startIndex=40, returned=40, totalItems=500",
      "[google-books][job-name] Page 3: startIndex=80, returned=40, totalItems=500",
      "[google-books][job-name] Stopped: max_per_run reached (120/120), next startIndex=120",
    ]);
  });

  it("starts from the cursor's startIndex", async () => {
    const { fake, server } = await startBooksFake({ sizes: { [Q]: 500 } });
    const { result } = await collectFromFake(server, {
      queries: [Q],
      maxPerRun: 40,
      cursor: { startIndex: 120, isExhausted: false },
    });
    expect(fake.calls.map((c) => c.startIndex)).toEqual([120]);
    expect(result.cursorState.startIndex).toBe(160);
  });

  it("does not overfetch: maxPerRun=10 asks for maxResults=10, not 40", async () => {
    const { fake, server } = await startBooksFake({ sizes: { [Q]: 500 } });
    const { result } = await collectFromFake(server, { queries: [Q], maxPerRun: 10 });
    expect(fake.calls.map((c) => c.maxResults)).toEqual([10]);
    expect(result.items).toHaveLength(10);
    expect(result.cursorState).toEqual({
      startIndex: 10,
      isExhausted: false,
      stopReason: "max_per_run",
    });
  });

  it("asks only for what is left of maxPerRun on the last page (50 = 40 + 10)", async () => {
    const { fake, server } = await startBooksFake({ sizes: { [Q]: 500 } });
    await collectFromFake(server, { queries: [Q], maxPerRun: 50 });
    expect(fake.calls.map((c) => [c.startIndex, c.maxResults])).toEqual([
      [0, 40],
      [40, 10],
    ]);
  });

  it("is exhausted when startIndex + items reaches totalItems (startIndex = totalItems)", async () => {
    const { server } = await startBooksFake({ sizes: { [Q]: 120 } });
    const { result, logs, hash, lines } = await collectFromFake(server, {
      queries: [Q],
      maxPerRun: 500,
    });
    expect(result.items).toHaveLength(120);
    expect(result.cursorState).toEqual({
      startIndex: 120,
      isExhausted: true,
      stopReason: "exhausted",
    });
    expect(logs.at(-1)).toBe(
      `[WARN][google-books][job-name] Exhausted: startIndex=120 >= totalItems=120 (query_set_hash=${shortHash(hash)})`,
    );
    expect(lines.at(-1)?.level).toBe("warn");
    // Logs carry the 16-character short hash only, in the fields as in the text.
    expect(lines.at(-1)).toMatchObject({ query_set_hash: shortHash(hash) });
    expect(JSON.stringify(lines)).not.toContain(hash);
  });

  it("is exhausted on an empty page (items absent) and keeps startIndex where it was", async () => {
    const { fake, server } = await startBooksFake({ sizes: { [Q]: 100 } });
    const { result, logs } = await collectFromFake(server, {
      queries: [Q],
      maxPerRun: 40,
      cursor: { startIndex: 100, isExhausted: false },
    });
    expect(fake.calls.map((c) => [c.startIndex, c.status, c.returned])).toEqual([[100, 200, 0]]);
    expect(result.items).toEqual([]);
    expect(result.cursorState).toEqual({
      startIndex: 100,
      isExhausted: true,
      stopReason: "exhausted",
    });
    expect(logs[0]).toBe(
      "[google-books][job-name] Page 1: startIndex=100, returned=0, totalItems=0",
    );
    expect(logs[1]).toMatch(
      /^\[WARN\]\[google-books\]\[job-name\] Exhausted: no more items at startIndex=100 \(totalItems=0\) /,
    );
  });

  it("is exhausted when Google stops giving items before its totalItems (~1,000 cap)", async () => {
    const { server } = await startBooksFake({ sizes: { [Q]: 1400 } });
    const { result, logs } = await collectFromFake(server, {
      queries: [Q],
      maxPerRun: 40,
      cursor: { startIndex: 1100, isExhausted: false },
    });
    expect(result.cursorState).toEqual({
      startIndex: 1100,
      isExhausted: true,
      stopReason: "exhausted",
    });
    expect(logs.at(-1)).toMatch(
      /Exhausted: no more items at startIndex=1100 \(totalItems=1400\) \(query_set_hash=[0-9a-f]{16}\)$/,
    );
  });

  it("stops on max_per_run without marking exhausted, even when that page reached the end", async () => {
    const { server } = await startBooksFake({ sizes: { [Q]: 80 } });
    const { result } = await collectFromFake(server, { queries: [Q], maxPerRun: 80 });
    expect(result.cursorState).toEqual({
      startIndex: 80,
      isExhausted: false,
      stopReason: "max_per_run",
    });
  });

  it("stops on the daily budget (quota) without marking exhausted", async () => {
    const { fake, server } = await startBooksFake({ sizes: { [Q]: 500 } });
    const { result, logs } = await collectFromFake(server, {
      queries: [Q],
      maxPerRun: 200,
      quota: new StubQuota(2),
    });
    expect(fake.calls).toHaveLength(2);
    expect(result.cursorState).toEqual({ startIndex: 80, isExhausted: false, stopReason: "quota" });
    expect(logs.at(-1)).toBe(
      "[google-books][job-name] Stopped: quota limit reached, next startIndex=80",
    );
  });

  it("stops on the API's 429 daily-quota answer without marking exhausted, and spends the budget", async () => {
    const { fake, server } = await startBooksFake({ sizes: { [Q]: 500 }, dailyQuota: 1 });
    const quota = new StubQuota();
    const { result } = await collectFromFake(server, { queries: [Q], maxPerRun: 200, quota });
    expect(fake.calls.map((c) => c.status)).toEqual([200, 429]);
    expect(result.cursorState).toEqual({ startIndex: 40, isExhausted: false, stopReason: "quota" });
    expect(quota.spent).toBe(true);
  });

  it("keeps is_exhausted=false and preserves startIndex on an API error", async () => {
    const { server } = await startBooksFake({ sizes: { [Q]: 500 } });
    server.faults.set({ statusSequence: [200, 500] });
    const { result, logs } = await collectFromFake(server, { queries: [Q], maxPerRun: 200 });
    expect(result.cursorState).toEqual({ startIndex: 40, isExhausted: false, stopReason: "error" });
    expect(result.items).toHaveLength(40);
    expect(String(result.error)).toMatch(/HTTP 500/);
    expect(logs.at(-1)).toBe(
      "[google-books][job-name] Stopped: API error, preserving startIndex=40",
    );
  });

  it("leaves startIndex unchanged when the very first call fails (items.length = 0)", async () => {
    const { fake, server } = await startBooksFake({ sizes: { [Q]: 500 } });
    fake.knobs.failNext = [503];
    const { result } = await collectFromFake(server, {
      queries: [Q],
      maxPerRun: 40,
      cursor: { startIndex: 40, isExhausted: false },
    });
    expect(result.items).toEqual([]);
    expect(result.cursorState).toEqual({ startIndex: 40, isExhausted: false, stopReason: "error" });
  });

  it("treats totalItems = 0 as exhausted from the start (startIndex 0)", async () => {
    const { fake, server } = await startBooksFake({ sizes: { [Q]: 0 } });
    const { result, logs } = await collectFromFake(server, { queries: [Q], maxPerRun: 80 });
    expect(fake.calls).toHaveLength(1);
    expect(result.cursorState).toEqual({
      startIndex: 0,
      isExhausted: true,
      stopReason: "exhausted",
    });
    expect(logs.at(-1)).toMatch(/Exhausted: no more items at startIndex=0 \(totalItems=0\) /);
  });

  it("returns at once, without calling the API, when the cursor is already exhausted", async () => {
    const { fake, server } = await startBooksFake({ sizes: { [Q]: 500 } });
    const { result } = await collectFromFake(server, {
      queries: [Q],
      maxPerRun: 40,
      cursor: { startIndex: 120, isExhausted: true },
    });
    expect(fake.calls).toHaveLength(0);
    expect(result.cursorState).toEqual({
      startIndex: 120,
      isExhausted: true,
      stopReason: "exhausted",
    });
  });

  it("retries a 5xx and counts the request once against the quota", async () => {
    const { server } = await startBooksFake({ sizes: { [Q]: 500 } });
    server.faults.set({ statusSequence: [503], retryAfter: 0 });
    const { result, quota } = await collectFromFake(server, {
      queries: [Q],
      maxPerRun: 40,
      retryMaxAttempts: 2,
    });
    expect(result.cursorState.stopReason).toBe("max_per_run");
    expect(quota.reserved).toBe(1);
    expect(quota.extra).toBe(0);
  });
});
