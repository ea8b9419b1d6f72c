import { OpenAPIHono } from "@hono/zod-openapi";
import { expect, it } from "vitest";
import { JobService } from "../../engine/jobs/job-service.ts";
import { TidemarkMetrics } from "../../engine/metrics/tidemark-metrics.ts";
import { RunRepo } from "../../engine/runs/run-repo.ts";
import type { Runtime } from "../../engine/runtime/runtime.ts";
import { silentLogger } from "../../infra/logging/logger.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { ManualClock } from "../../testing/manual-clock.ts";
import { openTestRuntime } from "../../testing/test-runtime.ts";
import { errorHandler } from "../errors.ts";
import type { ServerServices } from "../server-services.ts";
import { registerJobRoutes } from "./job-routes.ts";
import { registerRunRoutes } from "./run-routes.ts";

function app(rt: Runtime) {
  const services: ServerServices = {
    runtime: rt,
    queue: undefined,
    metrics: new TidemarkMetrics(),
    apiTokens: undefined,
    requestRun: async () => {
      throw new Error("unused");
    },
    findRequestedRun: async () => undefined,
  };
  const hono = new OpenAPIHono();
  hono.onError(errorHandler(silentLogger()));
  registerJobRoutes(hono, services);
  registerRunRoutes(hono, services);
  // Response bodies are checked with expect(); typing them would only restate the schemas.
  // biome-ignore lint/suspicious/noExplicitAny: see above
  return async (path: string): Promise<any> => (await hono.request(path)).json();
}

/** A run recorded `running` whose process holds its lease for ttlMs (then dies silently). */
async function startedRun(rt: Runtime, runId: string, ttlMs: number) {
  await rt.leases.tryAcquire("job:crashy", runId, ttlMs);
  await new RunRepo(rt.db).insertStarted({
    runId,
    jobName: "crashy",
    jobType: "test.echo",
    startedAt: rt.clock.now().toISOString(),
    dryRun: false,
    leaseKey: "job:crashy",
    host: "elsewhere",
    pid: 4242,
  });
}

describeEachDialect("run routes", (h) => {
  it("GET /api/runs writes nothing: a run whose lease expired shows abandoned, stays running in tm_runs", async () => {
    const clock = new ManualClock("2026-01-15T09:30:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    await new JobService(rt.db, rt.registry, clock).add({
      name: "crashy",
      type: "test.echo",
      params: { message: "m" },
      schedule: null,
      timezone: "UTC",
      enabled: true,
    });
    const ended: string[] = [];
    rt.events?.onRunEnded((e) => {
      ended.push(e.runId);
    });
    const get = app(rt);
    const id = "crashy_20260115T093000Z_abcdef";
    await startedRun(rt, id, 60_000);

    expect((await get("/api/runs")).runs).toMatchObject([{ runId: id, status: "running" }]);
    expect(await get(`/api/runs/${id}`)).toMatchObject({ status: "running", finishedAt: null });

    clock.advance(61_000);
    const dead = {
      runId: id,
      status: "abandoned",
      finishedAt: "2026-01-15T09:31:00.000Z",
      error: "lease lost: it expired without renewal (the process died or stalled)",
    };
    expect((await get("/api/runs")).runs).toMatchObject([dead]);
    expect(await get(`/api/runs/${id}`)).toMatchObject(dead);
    expect((await get("/api/runs?status=abandoned")).runs).toMatchObject([dead]);
    expect((await get("/api/runs?status=running")).runs).toEqual([]);
    expect((await get("/api/jobs/crashy")).lastRun).toMatchObject(dead);

    // Nothing was written and no run-ended event went out: that is the owner's sweep's job.
    expect(await new RunRepo(rt.db).get(id)).toMatchObject({ status: "running", finishedAt: null });
    expect(ended).toEqual([]);
    expect(await new RunRepo(rt.db, rt.events).markAbandoned(clock.now().toISOString())).toEqual([
      id,
    ]);
    expect(await get(`/api/runs/${id}`)).toMatchObject({ status: "abandoned" });
  });

  it("a running run whose lease was taken over by a newer run shows abandoned too", async () => {
    const clock = new ManualClock("2026-01-15T09:30:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    const get = app(rt);
    const old = "crashy_20260115T093000Z_000001";
    await startedRun(rt, old, 1_000);
    clock.advance(2_000);
    await startedRun(rt, "crashy_20260115T093002Z_000002", 60_000);
    const runs = (await get("/api/runs")).runs;
    expect(runs.map((r: { runId: string; status: string }) => [r.runId, r.status])).toEqual([
      ["crashy_20260115T093002Z_000002", "running"],
      [old, "abandoned"],
    ]);
    expect(runs[1].finishedAt).toBeNull();
  });
});
