// What a pipeline gets instead of the process's Runtime: stored jobs, runs made now, the queue
// (drained in-process) and the failure webhook's feed, all through its PipelineServices.
import {
  defineJobType,
  definePipeline,
  defineQueueHandler,
  defineSettings,
  type RunJobReport,
} from "tidemark";
import { drainQueue, HttpClient, startFakeServer, typed } from "tidemark/kit";
import { describeEachDialect, openPipelineServices } from "tidemark/testing";
import { expect, it } from "vitest";
import { z } from "zod";
import { Registry } from "../../src/engine/registry/registry.ts";
import { pipelineServices } from "../../src/engine/runs/pipeline-services.ts";
import { openTestRuntime } from "../../src/testing/test-runtime.ts";

const handled: string[] = [];
const note = defineQueueHandler({
  name: "cap.note",
  description: "takes a note",
  payload: z.object({ text: z.string() }),
  send: { retryLimit: 0 },
  handle: async (_ctx, payload) => {
    if (payload.text === "boom") throw new Error("boom");
    handled.push(payload.text);
  },
});
const count = defineJobType({
  name: "cap.count",
  description: "counts to n",
  params: z.object({ n: z.number().int().min(0) }).strict(),
  example: { n: 1 },
  run: async (_ctx, params) => ({ summary: { counted: params.n } }),
});
const token = defineSettings({
  schema: z.object({ token: z.string().default("none") }).strict(),
  env: [{ name: "CAP_TOKEN", path: ["token"], kind: "string" }],
});
const env = defineJobType({
  name: "cap.env",
  description: "reports what it sees of its environment",
  params: z.object({}),
  example: {},
  settings: token,
  run: async (ctx) => ({
    summary: { seen: ctx.environ.CAP_SEEN ?? null, token: ctx.settings.token },
  }),
});
let inner: RunJobReport | undefined;
const outer = defineJobType({
  name: "cap.outer",
  description: "runs cap.count from inside a run",
  params: z.object({}),
  example: {},
  run: async (ctx) => {
    inner = await ctx.runJob({ job: "inner", type: "cap.count", params: { n: 3 } });
    return { summary: { inner: inner.status } };
  },
});
const pipeline = definePipeline({
  name: "cap",
  description: "capabilities under test",
  jobTypes: [count, outer, env],
  settings: token,
  queueHandlers: [note],
});
const other = definePipeline({
  name: "other",
  description: "another pipeline",
  jobTypes: [
    defineJobType({
      name: "other.job",
      description: "not cap's",
      params: z.object({}),
      example: {},
      run: async () => ({ summary: {} }),
    }),
  ],
});

describeEachDialect("a pipeline's services", (h) => {
  it("store jobs validated like `job add`, and read and change them", async () => {
    const services = await openPipelineServices(h, pipeline);
    const spec = { name: "c1", type: "cap.count", params: { n: 2 }, schedule: "*/5 * * * *" };
    await services.jobs.add(spec);
    await services.jobs.add({ name: "bare", type: "cap.count", params: { n: 0 } });
    expect(await services.jobs.get("bare")).toMatchObject({
      schedule: null,
      timezone: "UTC",
      enabled: true,
    });
    expect(await services.jobs.get("c1")).toMatchObject(spec);
    expect(await services.jobs.get("nope")).toBeUndefined();
    const bad = services.jobs.add({ ...spec, name: "c2", params: { n: -1 } });
    await expect(bad).rejects.toThrow(/n/);
    await expect(services.jobs.add({ ...spec, name: "c 3" })).rejects.toThrow(/job c 3: name/);
    expect(() => services.jobs.validate({ ...spec, name: "c4", schedule: "every day" })).toThrow(
      /schedule/,
    );
    services.jobs.validate({ ...spec, name: "c5" });
    expect((await services.jobs.list()).map((j) => j.name).sort()).toEqual(["bare", "c1"]);
    await services.jobs.update("c1", { enabled: false });
    expect(await services.jobs.get("c1")).toMatchObject({ enabled: false });
  });

  it("run one of the pipeline's job types now, recorded like any run, and only its own", async () => {
    const runtime = await openTestRuntime(h, { registry: new Registry([pipeline, other]) });
    const services = pipelineServices(runtime, "cap");
    const report = await services.runJob({ job: "c", type: "cap.count", params: { n: 4 } });
    expect(report).toMatchObject({ status: "succeeded", summary: { counted: 4 }, jobName: "c" });
    const bad = services.runJob({ job: "c", type: "cap.count", params: { n: "x" } });
    await expect(bad).rejects.toThrow(/job c params: n: .*expected number/);
    await expect(services.runJob({ job: "o", type: "other.job" })).rejects.toThrow(
      /cap has no job type "other\.job"/,
    );
    const nested = await services.runJob({ job: "o", type: "cap.outer" });
    expect(nested.summary).toEqual({ inner: "succeeded" });
    expect(inner?.summary).toEqual({ counted: 3 });
    const db = typed<{ tm_runs: { job_name: string } }>(runtime.db);
    const runs = await db.selectFrom("tm_runs").select("job_name").execute();
    expect(runs.map((r) => r.job_name).sort()).toEqual(["c", "inner", "o"]);
  });

  it("run with environment variables for that run alone, settings' overrides included", async () => {
    const services = await openPipelineServices(h, pipeline);
    const environ = { CAP_SEEN: "yes", CAP_TOKEN: "from-env" };
    const report = await services.runJob({ job: "e", type: "cap.env", environ });
    expect(report.summary).toEqual({ seen: "yes", token: "from-env" });
    const plain = await services.runJob({ job: "e", type: "cap.env" });
    expect(plain.summary).toEqual({ seen: null, token: "none" });
    expect(services.environ.CAP_SEEN).toBeUndefined();
  });

  it("drain a queue handler's queue in-process, counting failures and refusing bad payloads", async () => {
    const services = await openPipelineServices(h, pipeline);
    handled.length = 0;
    const queue = await services.openQueue();
    try {
      await queue.send(note.name, { text: "a" });
      await queue.send(note.name, { text: "boom" }, { retryLimit: 0 });
      await queue.send(note.name, { text: 7 }, { retryLimit: 0 });
      await queue.send(note.name, { text: "b" });
      const bad = services.sendBatch(note, [
        { payload: { text: "c" } },
        { payload: { text: 2 } as never },
      ]);
      await expect(bad).rejects.toThrow(/text/);
      const ids = await services.sendBatch(note, [
        { payload: { text: "d" } },
        { payload: { text: "e" } },
      ]);
      expect(ids).toEqual([expect.any(String), expect.any(String)]);
      const report = await drainQueue(services, queue, note, { timeoutMs: 20_000 });
      expect(report).toEqual({ handled: 4, failed: 2 });
      expect(handled.sort()).toEqual(["a", "b", "d", "e"]);
      const dead = await queue.deadLetters(note.name);
      expect(dead.length).toBe(2);
    } finally {
      await queue.close();
    }
  });

  it("tell the failure webhook's listeners about an ended run", async () => {
    const runtime = await openTestRuntime(h, { registry: new Registry([pipeline]) });
    const heard: string[] = [];
    runtime.events?.onRunEnded((e) => {
      heard.push(`${e.jobName}:${e.status}`);
    });
    const event = {
      runId: "msg_1",
      jobName: "cap.note queue",
      jobType: "cap.note.x",
      status: "failed" as const,
      startedAt: "2026-01-01T00:00:00.000Z",
      finishedAt: "2026-01-01T00:00:01.000Z",
      error: "dead-lettered",
      dryRun: false,
    };
    pipelineServices(runtime, "cap").reportRunEnded(event);
    expect(heard).toEqual(["cap.note queue:failed"]);
  });

  it("count a client's requests in the process's HTTP metrics when it reports them", async () => {
    const runtime = await openTestRuntime(h, { registry: new Registry([pipeline]) });
    const seen: string[] = [];
    runtime.events?.onHttpRequest((e) => {
      seen.push(`${e.status}:${e.outcome}`);
    });
    const server = await startFakeServer(() => Response.json({ ok: true }), {
      faults: { statusSequence: [503] },
    });
    try {
      const services = pipelineServices(runtime, "cap");
      const client = new HttpClient({
        logger: services.logger,
        userAgent: "cap",
        retry: { maxAttempts: 2, baseDelayMs: 1 },
        onRequest: services.reportHttpRequest,
      });
      await client.request(`${server.url}/x`);
      const silent = new HttpClient({ logger: services.logger, userAgent: "cap" });
      await silent.request(`${server.url}/y`);
    } finally {
      await server.close();
    }
    expect(seen).toEqual(["503:retry", "200:ok"]);
  });
});
