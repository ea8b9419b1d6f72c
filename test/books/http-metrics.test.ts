// A run's requests to Google Books reach the process's HTTP metrics (serve and worker count
// them), through the pipeline's services: each attempt, with its host and outcome.
import { expect, it } from "vitest";
import { executeRun } from "../../src/engine/runs/job-runner.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import {
  addBooksJob,
  exampleParams,
  openBooksRuntime,
  startBooksFake,
} from "./support/books-harness.ts";

describeEachDialect("books HTTP metrics", (h) => {
  it("every request of a run is reported to the process's events", async () => {
    const { fake, server } = await startBooksFake({
      sizes: { "intitle:consulting": 100, "subject:management": 100 },
    });
    const { runtime } = await openBooksRuntime(h, { books: { base_url: server.url } });
    const hosts: string[] = [];
    runtime.events?.onHttpRequest((e) => {
      hosts.push(`${e.host} ${e.outcome}`);
    });
    const params = exampleParams();
    await addBooksJob(runtime, "j", params);
    const report = await executeRun(runtime, {
      jobName: "j",
      jobType: "books.run",
      params,
      dryRun: true,
    });
    expect(report.status).toBe("succeeded");
    expect(fake.calls.length).toBeGreaterThan(0);
    expect(hosts).toEqual(fake.calls.map(() => `${new URL(server.url).host} ok`));
  });
});
