import type { FakeServer } from "../../../src/engine/fakes/fake-server.ts";
import { googleBooksFetcher } from "../../../src/pipelines/books/client/google-books-client.ts";
import { CollectLog } from "../../../src/pipelines/books/stages/collect/collect-log.ts";
import type { QuotaBudget } from "../../../src/pipelines/books/stages/collect/collector.ts";
import { collect } from "../../../src/pipelines/books/stages/collect/collector.ts";
import { computeQuerySetHash } from "../../../src/pipelines/books/stages/collect/query-set-hash.ts";
import { captureLogger, type LogLine } from "./books-harness.ts";
import { booksSettingsFrom } from "./books-settings.ts";

/** An in-memory budget: `allow` reservations, then no more. */
export class StubQuota implements QuotaBudget {
  reserved = 0;
  extra = 0;
  spent = false;
  constructor(private readonly allow = Number.POSITIVE_INFINITY) {}
  async tryReserve(): Promise<boolean> {
    if (this.reserved >= this.allow || this.spent) return false;
    this.reserved++;
    return true;
  }
  async addUsed(count: number): Promise<void> {
    this.extra += count;
  }
  async markSpent(): Promise<void> {
    this.spent = true;
  }
}

/** Runs the collector against the fake server with the real client. */
export async function collectFromFake(
  server: FakeServer,
  input: {
    queries: string[];
    maxPerRun: number;
    cursor?: { startIndex: number; isExhausted: boolean };
    quota?: StubQuota;
    retryMaxAttempts?: number;
  },
) {
  const { logger, lines } = captureLogger();
  const settings = booksSettingsFrom(
    {
      base_url: server.url,
      requests_per_second: 1000,
      retry_max_attempts: input.retryMaxAttempts ?? 1,
      use_env: false,
    },
    {},
  );
  const quota = input.quota ?? new StubQuota();
  const hash = computeQuerySetHash(input.queries);
  const result = await collect(
    { queries: input.queries, maxPerRun: input.maxPerRun, cursor: input.cursor },
    {
      fetchPage: googleBooksFetcher({ settings, google: {}, apiKey: undefined, logger }),
      quota,
      log: new CollectLog(logger, "job-name", hash),
    },
  );
  const collectLines = lines.filter((l: LogLine) => /\[google-books\]|Skipped/.test(l.msg));
  return { result, quota, hash, logs: collectLines.map((l) => l.msg), lines: collectLines };
}
