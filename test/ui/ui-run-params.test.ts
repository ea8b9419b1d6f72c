// A run's page shows the params that run ran with, not the job's params as they are now.
import { expect, it } from "vitest";
import { JobService } from "../../src/engine/jobs/job-service.ts";
import { executeRun } from "../../src/engine/runs/job-runner.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { addEchoJob } from "../../src/testing/echo-job-queue.ts";
import { openTestRuntime } from "../../src/testing/test-runtime.ts";
import { openUi } from "./ui-app.ts";

describeEachDialect("dashboard run params", (h) => {
  it("shows the run's own params after the job's were changed", async () => {
    const runtime = await openTestRuntime(h);
    await addEchoJob(runtime, "greet", { message: "first words" });
    const report = await executeRun(runtime, {
      jobName: "greet",
      jobType: "test.echo",
      params: { message: "first words" },
    });
    const jobs = new JobService(runtime.db, runtime.registry, runtime.clock);
    await jobs.update("greet", { params: { message: "later words" } });

    const { get } = await openUi(runtime);
    const page = await get(`/ui/runs/${report.runId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("first words");
    expect(page.text).not.toContain("later words");
    expect(page.text).not.toContain("not recorded with this run");
  });
});
