// The daily request budget: per API key hash, counted in the database, reset at Pacific midnight.
import { expect, it } from "vitest";
import { executeRun } from "../../src/engine/runs/job-runner.ts";
import { typed } from "../../src/infra/db/open-database.ts";
import { apiKeyHash, QuotaRepo } from "../../src/pipelines/books/repos/quota-repo.ts";
import type { BooksTables } from "../../src/pipelines/books/tables.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import {
  addBooksJob,
  exampleParams,
  openBooksRuntime,
  startBooksFake,
} from "./support/books-harness.ts";

describeEachDialect("books daily quota", (h) => {
  it("grants requests up to the limit, then refuses until midnight Pacific time (PST)", async () => {
    const clock = new ManualClock("2026-01-15T07:59:00.000Z"); // 23:59 PST on Jan 14
    const { runtime } = await openBooksRuntime(h, { clock });
    const quota = new QuotaRepo(typed<BooksTables>(runtime.db), clock, apiKeyHash("k"), 3);
    expect([await quota.tryReserve(), await quota.tryReserve(), await quota.tryReserve()]).toEqual([
      true,
      true,
      true,
    ]);
    expect(await quota.tryReserve()).toBe(false);
    expect(await quota.usedToday()).toBe(3);
    clock.set("2026-01-15T07:59:59.999Z");
    expect(await quota.tryReserve()).toBe(false);
    clock.set("2026-01-15T08:00:00.000Z"); // 00:00 PST: a new quota day
    expect(await quota.usedToday()).toBe(0);
    expect(await quota.tryReserve()).toBe(true);
  });

  it("follows daylight saving time: the summer day starts at 07:00 UTC (PDT)", async () => {
    const clock = new ManualClock("2026-07-01T06:59:59.000Z");
    const { runtime } = await openBooksRuntime(h, { clock });
    const quota = new QuotaRepo(typed<BooksTables>(runtime.db), clock, apiKeyHash("k"), 1);
    expect(await quota.tryReserve()).toBe(true);
    expect(await quota.tryReserve()).toBe(false);
    clock.set("2026-07-01T07:00:00.000Z");
    expect(await quota.tryReserve()).toBe(true);
  });

  it("keeps one budget per key hash; markSpent and retries count too", async () => {
    const clock = new ManualClock("2026-03-10T12:00:00.000Z");
    const { runtime } = await openBooksRuntime(h, { clock });
    const db = typed<BooksTables>(runtime.db);
    const a = new QuotaRepo(db, clock, apiKeyHash("key-a"), 5);
    const b = new QuotaRepo(db, clock, apiKeyHash("key-b"), 5);
    await a.tryReserve();
    await a.addUsed(2); // two HTTP retries
    expect(await a.usedToday()).toBe(3);
    expect(await b.usedToday()).toBe(0);
    await b.markSpent(); // the API said 429
    expect(await b.tryReserve()).toBe(false);
    expect(await a.tryReserve()).toBe(true);
    const rows = await db
      .selectFrom("books.quota_usage")
      .select(["key_hash", "day", "requests"])
      .execute();
    expect(rows.map((r) => r.key_hash).sort()).toEqual(
      [apiKeyHash("key-a"), apiKeyHash("key-b")].sort(),
    );
    expect(rows.every((r) => r.day === "2026-03-10" && /^[0-9a-f]{64}$/.test(r.key_hash))).toBe(
      true,
    );
  });

  it("is shared by every job using the same key: the second job stops on quota", async () => {
    const clock = new ManualClock("2026-03-10T12:00:00.000Z");
    const { fake, server } = await startBooksFake({
      sizes: { "intitle:consulting": 500, "subject:management": 500 },
    });
    const { runtime } = await openBooksRuntime(h, {
      clock,
      books: { base_url: server.url, daily_request_limit: 2 },
    });
    const params = exampleParams();
    await addBooksJob(runtime, "a", params);
    await addBooksJob(runtime, "b", params);
    const ra = await executeRun(runtime, {
      jobName: "a",
      jobType: "books.run",
      params,
      dryRun: true,
    });
    const rb = await executeRun(runtime, {
      jobName: "b",
      jobType: "books.run",
      params,
      dryRun: true,
    });
    expect(ra.summary).toMatchObject({
      stop_reason: "max_per_run",
      quota_used_today: 2,
      quota_limit: 2,
    });
    expect(rb.summary).toMatchObject({ stop_reason: "quota", requests: 0, exhausted: false });
    expect(fake.calls).toHaveLength(2);
  });
});

describeEachDialect("books daily quota under concurrency", (h) => {
  it("never grants more than the limit to concurrent reservations", async () => {
    const clock = new ManualClock("2026-03-10T12:00:00.000Z");
    const { runtime } = await openBooksRuntime(h, { clock });
    const quota = new QuotaRepo(typed<BooksTables>(runtime.db), clock, apiKeyHash("k"), 5);
    const granted = await Promise.all(Array.from({ length: 12 }, () => quota.tryReserve()));
    expect(granted.filter(Boolean)).toHaveLength(5);
    expect(await quota.usedToday()).toBe(5);
  });
});
