// A pipeline's specs get its services, with its settings validated once and handed through.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { defineJobType, definePipeline, defineQueueHandler, defineSettings } from "tidemark";
import {
  describeEachDialect,
  openPipelineServices,
  runCli,
  runPipelineCli,
  testTempDir,
} from "tidemark/testing";
import { expect, it } from "vitest";
import { z } from "zod";
import { Registry } from "../../src/engine/registry/registry.ts";
import { executeRun } from "../../src/engine/runs/job-runner.ts";
import { pipelineServices } from "../../src/engine/runs/pipeline-services.ts";
import { demoContext } from "../../src/testing/demo-context.ts";
import { openTestRuntime } from "../../src/testing/test-runtime.ts";

let resolutions = 0;
const settings = defineSettings({
  schema: z.object({ greeting: z.string().default("hi") }).strict(),
  resolve: (parsed) => {
    resolutions += 1;
    return { greeting: parsed.greeting.toUpperCase() };
  },
});
const note = defineQueueHandler({
  name: "svc.note",
  description: "takes a note",
  payload: z.object({ text: z.string() }),
  handle: async () => {},
});
const greet = defineJobType({
  name: "svc.greet",
  description: "says the configured greeting",
  params: z.object({}),
  example: {},
  settings,
  run: async (ctx) => ({ summary: { greeting: ctx.settings.greeting, pipeline: ctx.pipeline } }),
});
const pipeline = definePipeline({
  name: "svc",
  description: "services under test",
  jobTypes: [greet],
  settings,
  queueHandlers: [note],
  commands: [
    {
      path: ["svc", "greeting"],
      description: "prints the greeting",
      action: async (_input, cli) => {
        const services = await cli.services<{ greeting: string }>();
        cli.print(`${services.pipeline}: ${services.settings.greeting}`);
      },
    },
  ],
});
const registry = () => new Registry([pipeline]);

it("a command's services carry its pipeline's settings from tidemark.yaml", async () => {
  const cwd = testTempDir("tm-svc-");
  writeFileSync(path.join(cwd, "tidemark.yaml"), "pipelines:\n  svc:\n    greeting: hello\n");
  const env = { TIDEMARK_DATA_DIR: path.join(cwd, "data") };
  const res = await runCli(["svc", "greeting"], { cwd, env, registry: registry() });
  expect(res.stderr).toBe("");
  expect(res.stdout.trim()).toBe("svc: HELLO");
});

describeEachDialect("pipeline services", (h) => {
  it("every run, command and demo of the pipeline gets settings validated once", async () => {
    const runtime = await openTestRuntime(h, { registry: registry() });
    resolutions = 0;
    const request = { jobName: "g", jobType: "svc.greet", params: {} };
    const first = await executeRun(runtime, request);
    const second = await executeRun(runtime, request);
    const services = pipelineServices<{ greeting: string }>(runtime, "svc");
    expect(first.summary).toEqual({ greeting: "HI", pipeline: "svc" });
    expect(second.summary).toEqual(first.summary);
    expect(services.settings).toEqual({ greeting: "HI" });
    expect(resolutions).toBe(1);
  });

  it("a demo runs a job with its own settings, validated with the pipeline's schema", async () => {
    const runtime = await openTestRuntime(h, { registry: registry() });
    const ctx = demoContext(runtime, "svc", { dataDir: "", print: () => {}, command: (a) => a });
    const run = await ctx.runJob({ job: "g", type: "svc.greet", settings: { greeting: "yo" } });
    expect(run).toMatchObject({ status: "succeeded", summary: { greeting: "YO" } });
    const bad = ctx.runJob({ job: "g", type: "svc.greet", settings: { greting: "yo" } });
    await expect(bad).rejects.toThrow(/pipelines\.svc.*greting/);
    expect(ctx.services.settings).toEqual({ greeting: "HI" });
  });

  it("send validates the payload against the handler's schema, naming the field", async () => {
    const runtime = await openTestRuntime(h, { registry: registry() });
    const services = pipelineServices(runtime, "svc");
    await expect(services.send(note, { text: 1 } as never)).rejects.toThrow(/text/);
    expect(await services.send(note, { text: "kept" })).toEqual(expect.any(String));
  });
});

describeEachDialect("tidemark/testing's pipeline harness", (h) => {
  it("gives a pipeline's services with the settings it is handed, validated by its schema", async () => {
    const services = await openPipelineServices<{ greeting: string }>(h, pipeline, {
      settings: { greeting: "hey" },
    });
    expect(services.settings).toEqual({ greeting: "HEY" });
    await expect(openPipelineServices(h, pipeline, { settings: { nope: 1 } })).rejects.toThrow(
      /pipelines\.svc.*nope/,
    );
  });

  it("runs the CLI with only the pipelines given", async () => {
    const cwd = testTempDir("tm-svc-");
    const res = await runPipelineCli([pipeline], ["job", "types"], { cwd });
    expect(res.stdout).toContain("svc.greet");
    expect(res.stdout).not.toContain("books.run");
  });
});
