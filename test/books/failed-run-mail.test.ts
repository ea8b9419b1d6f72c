// A run that failed on the API mails nothing, and its failed request counts once in the quota.
import { expect, it } from "vitest";
import { executeRun } from "../../src/engine/runs/job-runner.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import {
  addBooksJob,
  exampleParams,
  openBooksRuntime,
  startBooksFake,
  startCapture,
} from "./support/books-harness.ts";

describeEachDialect("a books run that failed on the API", (h) => {
  it("mails no digest and counts its retried request once; the next run mails the books", async () => {
    const { fake, server } = await startBooksFake({ sizes: { "intitle:consulting": 300 } });
    const smtp = await startCapture();
    const { runtime } = await openBooksRuntime(h, {
      books: {
        base_url: server.url,
        retry_max_attempts: 4,
        smtp: { host: smtp.host, port: smtp.port },
      },
    });
    const params = exampleParams({ queries: ["intitle:consulting"], max_per_run: 80 });
    await addBooksJob(runtime, "digest", params);
    // The first page answers, the second fails on every one of its four attempts (the fake
    // records the answered calls only).
    server.faults.set({ statusSequence: [200, 503, 503, 503, 503] });
    const run = () => executeRun(runtime, { jobName: "digest", jobType: "books.run", params });
    const failed = await run();
    expect(failed.status).toBe("failed");
    expect(fake.calls.length).toBe(1);
    expect(failed.summary).toMatchObject({
      stop_reason: "error",
      quota_used_today: 2,
      mail: "not sent: collect stopped on an API error",
    });
    expect(smtp.messages).toHaveLength(0);

    server.faults.set({});
    const next = await run();
    expect(next.status).toBe("succeeded");
    expect(smtp.messages).toHaveLength(1);
  });
});
