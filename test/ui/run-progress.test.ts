// A running run's progress: stored in its row (throttled), shown by `GET /api/runs/{id}` and the
// run page's live fragment while it runs, kept once it ends; a failed write never fails the run.
import { afterEach, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineJobType, definePipeline } from "../../src/engine/registry/pipeline-definition.ts";
import { Registry } from "../../src/engine/registry/registry.ts";
import { executeRun } from "../../src/engine/runs/job-runner.ts";
import { RunProgressRecorder } from "../../src/engine/runs/run-progress.ts";
import { type RunProgress, RunRepo } from "../../src/engine/runs/run-repo.ts";
import type { Runtime } from "../../src/engine/runtime/runtime.ts";
import { silentLogger } from "../../src/infra/logging/logger.ts";
import { cliEnv } from "../../src/testing/cli-env.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testApp } from "../../src/testing/test-app.ts";
import { echoJobType, testPipeline } from "../../src/testing/test-pipeline.ts";
import { openTestRuntime } from "../../src/testing/test-runtime.ts";

/** Opened by the test: the job ticks 3 of 10, waits for it, then ticks the rest. */
let gate: { open: () => void; wait: Promise<void> } = newGate();

function newGate() {
  let open = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, wait };
}

const tickJobType = defineJobType({
  name: "test.tick",
  description: "test job: reports progress with a pause",
  params: z.object({}).strict(),
  example: {},
  async run(ctx) {
    const progress = ctx.progress("items", 10);
    progress.tick(3, { changed: 2 });
    await gate.wait;
    progress.tick(7, { changed: 5, failed: 1 });
    progress.stop();
    return { summary: { items: 10 } };
  },
});

const registry = () =>
  new Registry([definePipeline({ ...testPipeline, jobTypes: [echoJobType, tickJobType] })]);

function appFor(runtime: Runtime) {
  return testApp(runtime);
}

/** Starts a tick run and waits until it is recorded `running`; returns its id and outcome. */
async function startTickRun(rt: Runtime) {
  gate = newGate();
  const repo = new RunRepo(rt.db);
  const done = executeRun(rt, { jobName: "ticker", jobType: "test.tick", params: {} });
  const runId = await vi.waitFor(
    async () => {
      const [run] = await repo.list({ jobName: "ticker" });
      if (!run) throw new Error("not started yet");
      return run.runId;
    },
    { timeout: 5000, interval: 20 },
  );
  return { runId, done, repo };
}

afterEach(() => {
  vi.restoreAllMocks();
  gate.open();
});

describeEachDialect("run progress", (h) => {
  it("a running run shows its progress in its row, the API and the page fragment; it keeps the last", async () => {
    const rt = await openTestRuntime(h, { registry: registry() });
    const { runId, done, repo } = await startTickRun(rt);
    // The first tick lands within the write interval (~1 s) while the job waits at the gate.
    const progress = await vi.waitFor(
      async () => {
        const p = (await repo.get(runId))?.progress;
        if (p?.done !== 3) throw new Error(`progress so far: ${JSON.stringify(p)}`);
        return p;
      },
      { timeout: 5000, interval: 50 },
    );
    expect(progress).toMatchObject({ label: "items", done: 3, total: 10, figures: { changed: 2 } });
    expect(progress.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect((await repo.get(runId))?.status).toBe("running");

    const app = appFor(rt);
    const api = (await (await app.request(`/api/runs/${runId}`)).json()) as {
      status: string;
      progress?: RunProgress;
    };
    expect(api.status).toBe("running");
    expect(api.progress).toMatchObject({ label: "items", done: 3, total: 10 });

    const live = await (await app.request(`/ui/fragments/runs/${runId}`)).text();
    expect(live).toContain("hx-trigger");
    expect(live).toContain('<progress aria-label="items" max="10" value="3"></progress>');
    expect(live).toContain("3/10");
    expect(live).toContain("changed 2");

    gate.open();
    const report = await done;
    expect(report.status).toBe("succeeded");
    const ended = await repo.get(runId);
    expect(ended?.status).toBe("succeeded");
    expect(ended?.progress).toMatchObject({
      done: 10,
      total: 10,
      figures: { changed: 5, failed: 1 },
    });
    const after = await (await app.request(`/ui/fragments/runs/${runId}`)).text();
    expect(after).not.toContain("hx-trigger");
    expect(after).toContain('<progress aria-label="items" max="10" value="10"></progress>');
  });

  it("runs show prints a run's last progress", async () => {
    const o = { ...(await cliEnv(h)), registry: registry() };
    gate = newGate();
    gate.open();
    expect((await runCli(["job", "add", "ticker", "--type", "test.tick"], o)).code).toBe(0);
    const { runId } = JSON.parse((await runCli(["run", "ticker", "--json"], o)).stdout);
    const r = await runCli(["runs", "show", runId], o);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\nprogress: {2}items 10\/10 {2}changed 5 {2}failed 1 \(at \S+Z\)\n/);
    const json = JSON.parse((await runCli(["runs", "show", runId, "--json"], o)).stdout);
    expect(json.progress).toMatchObject({ label: "items", done: 10, total: 10 });
  });

  it("a progress write that fails does not fail the run", async () => {
    const rt = await openTestRuntime(h, { registry: registry() });
    const write = vi
      .spyOn(RunRepo.prototype, "writeProgress")
      .mockRejectedValue(new Error("database is locked"));
    gate = newGate();
    gate.open();
    const report = await executeRun(rt, { jobName: "ticker", jobType: "test.tick", params: {} });
    expect(write).toHaveBeenCalled();
    expect(report.status).toBe("succeeded");
    expect(report.error).toBeNull();
    expect((await new RunRepo(rt.db).get(report.runId))?.progress).toBeUndefined();
  });

  it("a run that reports no progress has none", async () => {
    const rt = await openTestRuntime(h, { registry: registry() });
    const report = await executeRun(rt, {
      jobName: "hello",
      jobType: "test.echo",
      params: { message: "hi" },
    });
    const stored = await new RunRepo(rt.db).get(report.runId);
    expect(stored?.progress).toBeUndefined();
    const live = await (await appFor(rt).request(`/ui/fragments/runs/${report.runId}`)).text();
    expect(live).not.toContain("<progress");
  });
});

it("writes at most once per interval, once at stop, and nothing after close", async () => {
  const writes: RunProgress[] = [];
  const clock = { now: () => new Date("2026-01-01T00:00:00.000Z") };
  const recorder = new RunProgressRecorder(
    { writeProgress: async (_id, p) => void writes.push(p) },
    "r1",
    clock,
    silentLogger(),
  );
  const silent = { tick() {}, setTotal() {}, stop() {} };
  const p = recorder.reporter("rows", undefined, silent);
  for (let i = 0; i < 100; i++) p.tick(1, { seen: i + 1 });
  p.setTotal(100);
  await new Promise((r) => setTimeout(r, 10));
  expect(writes).toHaveLength(1);
  expect(writes[0]).toMatchObject({ label: "rows", done: 0, total: null });
  p.stop();
  await recorder.close();
  expect(writes).toHaveLength(2);
  expect(writes[1]).toMatchObject({ done: 100, total: 100, figures: { seen: 100 } });
  p.tick(5);
  p.stop();
  await recorder.close();
  expect(writes).toHaveLength(2);
});
