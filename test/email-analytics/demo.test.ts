// The demo: imports a newsletter, runs the fetch while events arrive, prints the stats.
import { expect, it } from "vitest";
import { emailAnalyticsPipeline } from "../../src/pipelines/email-analytics/index.ts";
import { demoContext } from "../../src/testing/demo-context.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";
import { openEaRuntime } from "./support/job-harness.ts";

describeEachDialect("email-analytics demo", (h) => {
  it("imports, fetches three times and prints email and member stats", async () => {
    const { runtime } = await openEaRuntime(h);
    const lines: string[] = [];
    await emailAnalyticsPipeline.demo?.(
      demoContext(runtime, "email-analytics", {
        dataDir: testTempDir("tm-ea-demo-"),
        print: (l) => lines.push(l),
        command: (a) => `tidemark ${a}`,
      }),
    );
    const text = lines.join("\n");
    expect(text).toMatch(/Imported .*members 100.*email_recipients 600/);
    expect(text).toMatch(/Run 1: succeeded, \d+ events/);
    expect(text).toMatch(/Run 3: succeeded/);
    expect(text).toMatch(/email-analytics-latest-opened\s+finished/);
    expect(text).toMatch(/delivered\s+\d+/);
    expect(text).toMatch(/Most engaged members/);
    const opened = /opened\s+(\d+)/.exec(text);
    expect(Number(opened?.[1])).toBeGreaterThan(10);
  }, 120_000);
});
