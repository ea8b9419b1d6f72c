import { expect, it } from "vitest";
import { z } from "zod";
import { ConfigError } from "../../infra/errors.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { testPipeline } from "../../testing/test-pipeline.ts";
import { openTestRuntime } from "../../testing/test-runtime.ts";
import { defineJobType, definePipeline } from "../registry/pipeline-definition.ts";
import { Registry } from "../registry/registry.ts";
import { executeRun, exitCodeFor } from "./job-runner.ts";

/** A pipeline whose jobs fail on a setting: thrown, or reported. */
const configPipeline = definePipeline({
  name: "cfg",
  description: "fails on its configuration",
  jobTypes: [
    defineJobType({
      name: "cfg.throws",
      description: "throws a config error",
      params: z.object({}).strict(),
      example: {},
      run: async () => {
        throw new ConfigError("CFG_TOKEN is not set");
      },
    }),
    defineJobType({
      name: "cfg.reports",
      description: "reports a config failure",
      params: z.object({}).strict(),
      example: {},
      run: async () => ({ status: "failed", summary: {}, message: "no config", exitCode: 2 }),
    }),
  ],
});

describeEachDialect("a run's exit code", (h) => {
  it("is 2 when the run failed on the user's configuration, 1 on any other failure", async () => {
    const rt = await openTestRuntime(h, { registry: new Registry([testPipeline, configPipeline]) });
    const run = (jobType: string, params: unknown) =>
      executeRun(rt, { jobName: jobType.replace(".", "-"), jobType, params });

    const thrown = await run("cfg.throws", {});
    expect(thrown).toMatchObject({ status: "failed", error: "CFG_TOKEN is not set", exitCode: 2 });
    expect(exitCodeFor(thrown)).toBe(2);
    expect(exitCodeFor(await run("cfg.reports", {}))).toBe(2);

    const failed = await run("test.echo", { message: "m", fail: true });
    expect(failed.exitCode).toBeUndefined();
    expect(exitCodeFor(failed)).toBe(1);
    expect(exitCodeFor(await run("test.echo", { message: "m" }))).toBe(0);
  });
});
