// The API key comes from the environment variable named in params, at run time only.
import { randomBytes } from "node:crypto";
import { afterEach, expect, it } from "vitest";
import { executeRun } from "../../src/engine/runs/job-runner.ts";
import { typed } from "../../src/infra/db/open-database.ts";
import { apiKeyHash } from "../../src/pipelines/books/repos/quota-repo.ts";
import type { BooksTables } from "../../src/pipelines/books/tables.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import {
  addBooksJob,
  exampleParams,
  openBooksRuntime,
  startBooksFake,
} from "./support/books-harness.ts";

const VAR = `TM_BOOKS_TEST_KEY_${randomBytes(4).toString("hex").toUpperCase()}`;
afterEach(() => {
  delete process.env[VAR];
});

describeEachDialect("books API key", (h) => {
  /** Adds job `j` with these params to a fresh books runtime and runs it (dry run). */
  async function runJob(
    overrides: Parameters<typeof exampleParams>[0],
    settings?: Parameters<typeof openBooksRuntime>[1],
  ) {
    const { runtime, logs } = await openBooksRuntime(h, settings);
    const params = exampleParams({ api_key_env: VAR, ...overrides });
    await addBooksJob(runtime, "j", params);
    const report = await executeRun(runtime, {
      jobName: "j",
      jobType: "books.run",
      params,
      dryRun: true,
    });
    return { runtime, logs, report };
  }

  it("fails naming the variable when it is unset and the real Google endpoint is configured", async () => {
    const { report } = await runJob({}); // no base_url: https://www.googleapis.com
    expect(report.status).toBe("failed");
    expect(report.error).toBe(
      `environment variable ${VAR} (named by params.api_key_env) is not set: export the Google Books API key in it`,
    );
  });

  it("sends the key from the variable, stores only its hash, and never logs it", async () => {
    const key = `k-${randomBytes(8).toString("hex")}`;
    process.env[VAR] = key;
    const { fake, server } = await startBooksFake({
      sizes: { "intitle:consulting": 100, "subject:management": 100 },
      apiKeys: [key],
    });
    const { runtime, logs, report } = await runJob({}, { books: { base_url: server.url } });
    expect(report.status).toBe("succeeded");
    expect(fake.calls.map((c) => c.key)).toEqual([key, key]);
    const usage = await typed<BooksTables>(runtime.db)
      .selectFrom("books.quota_usage")
      .selectAll()
      .execute();
    expect(usage.map((u) => u.key_hash)).toEqual([apiKeyHash(key)]);
    expect(JSON.stringify(logs)).not.toContain(key);
    expect(JSON.stringify(report)).not.toContain(key);
  });

  it("goes keyless with a warning when the variable is unset but the base URL is not Google's", async () => {
    const { fake, server } = await startBooksFake({
      sizes: { "intitle:consulting": 100, "subject:management": 100 },
    });
    const { logs, report } = await runJob({}, { books: { base_url: server.url } });
    expect(report.status).toBe("succeeded");
    expect(fake.calls.every((c) => c.key === undefined)).toBe(true);
    expect(
      logs.some(
        (l) => l.level === "warn" && l.msg.startsWith(`${VAR} is not set; calling ${server.url}`),
      ),
    ).toBe(true);
  });

  it("fails the run when the API rejects the key (400), without marking the cursor exhausted", async () => {
    process.env[VAR] = "wrong-key";
    const { server } = await startBooksFake({
      sizes: { "intitle:consulting": 100 },
      apiKeys: ["right-key"],
    });
    const { report } = await runJob(
      { queries: ["intitle:consulting"] },
      { books: { base_url: server.url } },
    );
    expect(report.status).toBe("failed");
    expect(report.error).toMatch(/HTTP 400: .*API key not valid/);
    expect(report.error).not.toContain("wrong-key");
    expect(report.summary).toMatchObject({
      stop_reason: "error",
      exhausted: false,
      next_start_index: 0,
    });
  });
});
