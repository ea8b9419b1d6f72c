import { expect, it, onTestFinished } from "vitest";
import { RetryableHttpError } from "../../src/engine/http/http-errors.ts";
import { silentLogger } from "../../src/infra/logging/logger.ts";
import { createMercariClient } from "../../src/pipelines/mercari/client/mercari-client.ts";
import { isMercariBlocked } from "../../src/pipelines/mercari/client/types.ts";
import { startMercariFakeServer } from "../../src/pipelines/mercari/fake/start-fake.ts";
import type { MercariSettings } from "../../src/pipelines/mercari/settings.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openTestRuntime } from "../../src/testing/test-runtime.ts";

describeEachDialect("Mercari client rate limit and faults", (h) => {
  async function setup(requestsPerSecond: number) {
    const fake = await startMercariFakeServer({
      start: "2026-03-01T00:00:00.000Z",
      autoGroups: false,
      groups: [{ keyword: "Roomba", count: 10 }],
    });
    onTestFinished(() => fake.close());
    const runtime = await openTestRuntime(h);
    const settings: MercariSettings = {
      baseUrl: fake.url,
      requestsPerSecond,
      firstRunMaxPages: 100,
      pagesPerRun: 3,
      pageSize: 120,
      requestTimeoutMs: 5000,
      retryMaxAttempts: 2,
    };
    const client = () =>
      createMercariClient({
        settings,
        logger: silentLogger(),
        db: runtime.db,
        retry: { sleep: async () => {} },
      });
    return { fake, client };
  }

  it("two clients on one database share requests_per_second", async () => {
    const { fake, client } = await setup(5);
    const [a, b] = [client(), client()];
    const started = performance.now();
    // A full bucket (5) then one token per 200 ms: the 12th request waits ~1.4 s.
    await Promise.all(
      Array.from({ length: 6 }, () => [
        a.search({ keyword: "Roomba" }),
        b.search({ keyword: "Roomba" }),
      ]).flat(),
    );
    expect(performance.now() - started).toBeGreaterThan(1_200);
    expect(fake.server.requests).toHaveLength(12);
  });

  it("5xx that persists is a retryable error, not a block", async () => {
    const { fake, client } = await setup(0);
    fake.fake.knobs.errorRate = 1;
    const err = await client()
      .search({ keyword: "Roomba" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryableHttpError);
    expect(isMercariBlocked(err)).toBe(false);
    expect(fake.fake.stats.faults).toBe(2);
  });
});
