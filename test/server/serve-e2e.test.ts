import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testRegistry } from "../../src/testing/test-pipeline.ts";
import { cliEnv } from "../cli/cli-env.ts";
import { type CliChild, eventually, startCli } from "./child-cli.ts";

const TOKEN = "e2e-token-0123456789abcdef";
const auth = { authorization: `Bearer ${TOKEN}` };

/** A cron expression (UTC, with seconds) whose only occurrence today is `at`. */
function cronAt(at: Date): string {
  return `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} *`;
}

interface RunJson {
  runId: string;
  jobName: string;
  status: string;
  startedAt: string;
  pid: number;
}

async function setup(h: Parameters<Parameters<typeof describeEachDialect>[1]>[0], yaml: string) {
  const { cwd, env } = await cliEnv(h);
  writeFileSync(path.join(cwd, "tidemark.yaml"), yaml);
  const fullEnv = { ...env, TIDEMARK_API_TOKENS: TOKEN };
  const cli = (...args: string[]) => runCli(args, { cwd, env: fullEnv, registry: testRegistry() });
  // Migrate once up front so the two children do not race to create the tables.
  expect((await cli("db", "migrate")).code).toBe(0);
  return { cwd, env: fullEnv, cli };
}

/** Stops every child still running, so a failed assertion leaves no process behind. */
async function stopAll(children: CliChild[]) {
  await Promise.all(children.map((c) => c.terminate()));
}

describeEachDialect("tidemark serve + tidemark worker (end to end)", (h) => {
  it("fires a cron job on time, runs an HTTP request on the worker, shows both in /metrics, stops on SIGTERM", async () => {
    const { cwd, env, cli } = await setup(
      h,
      "scheduler:\n  reload_seconds: 1\nserver:\n  shutdown_grace_seconds: 5\n",
    );
    expect(
      (await cli("job", "add", "manual", "--type", "test.echo", "--params", '{"message":"http"}'))
        .code,
    ).toBe(0);
    const serve = startCli(["serve", "--port", "0", "--no-workers"], { cwd, env });
    const worker = startCli(["worker", "--metrics-port", "0"], { cwd, env });
    try {
      const [, url] = (await serve.waitFor(/Listening on (http:\/\/\S+)/)) as RegExpMatchArray;
      await worker.waitFor(/Working on tidemark\.run/);
      const [, workerUrl] = (await worker.waitFor(
        /Metrics on (http:\/\/\S+)\/metrics/,
      )) as RegExpMatchArray;
      const api = (p: string, init: RequestInit = {}) =>
        fetch(`${url}${p}`, { ...init, headers: { ...auth, ...init.headers } });

      // A job added while serve runs, due a few seconds from now (seconds-level cron).
      const due = new Date(Math.ceil(Date.now() / 1000) * 1000 + 6000);
      const added = await cli(
        "job",
        "add",
        "cron-once",
        "--type",
        "test.echo",
        "--params",
        '{"message":"cron"}',
        "--schedule",
        cronAt(due),
      );
      expect(added.code).toBe(0);

      const post = await api("/api/jobs/manual/runs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"limit":3}',
      });
      expect(post.status).toBe(202);
      const queued = (await post.json()) as { runId: string; status: string };
      expect(queued.status).toBe("queued");

      const httpRun = await eventually(async () => {
        const res = await api(`/api/runs/${queued.runId}`);
        const body = (await res.json()) as RunJson;
        return body.status === "succeeded" ? body : undefined;
      }, "the HTTP run to succeed");
      expect(httpRun).toMatchObject({ runId: queued.runId, jobName: "manual", pid: worker.pid });

      const cronRun = await eventually(async () => {
        const res = await api("/api/runs?job=cron-once");
        const { runs } = (await res.json()) as { runs: RunJson[] };
        return runs.find((r) => r.status === "succeeded");
      }, "the cron run to succeed");
      expect(cronRun.pid).toBe(worker.pid);
      const lateMs = Date.parse(cronRun.startedAt) - due.getTime();
      expect(lateMs).toBeGreaterThanOrEqual(0);
      expect(lateMs).toBeLessThan(4000);

      const metrics = await (await api("/metrics")).text();
      expect(metrics).toContain(
        'tidemark_scheduler_fires_total{job="cron-once",outcome="queued"} 1',
      );
      expect(metrics).toContain('tidemark_job_runs_recorded{job="cron-once",status="succeeded"} 1');
      expect(metrics).toContain('tidemark_job_runs_recorded{job="manual",status="succeeded"} 1');
      expect(metrics).toContain("# TYPE tidemark_queue_messages gauge");
      // Pipelines' own metrics, registered through their `metrics` hook.
      expect(metrics).toContain("tidemark_lab_notes 2");
      expect((await fetch(`${url}/metrics`)).status).toBe(401);
      // The worker's own counters (its runs, its source requests) on its metrics port.
      const workerMetrics = await (await fetch(`${workerUrl}/metrics`, { headers: auth })).text();
      expect(workerMetrics).toContain('tidemark_runs_total{job="manual",status="succeeded"} 1');
      expect(workerMetrics).toContain('tidemark_runs_total{job="cron-once",status="succeeded"} 1');
      expect(metrics).not.toContain("tidemark_runs_total{");
      expect((await fetch(`${workerUrl}/metrics`)).status).toBe(401);
      expect((await fetch(`${workerUrl}/healthz`)).status).toBe(200);
      expect((await fetch(`${workerUrl}/api/jobs`, { headers: auth })).status).toBe(404);

      // The error answers over real HTTP, as the in-process API tests check them in detail.
      const wrong = await fetch(`${url}/api/jobs`, {
        headers: { authorization: "Bearer nope-nope-nope-nope" },
      });
      expect([
        wrong.status,
        ((await wrong.json()) as { error: { code: string } }).error.code,
      ]).toEqual([401, "unauthorized"]);
      const json = { "content-type": "application/json" };
      const malformed = await api("/api/jobs/manual/runs", {
        method: "POST",
        headers: json,
        body: "{",
      });
      expect(malformed.status).toBe(400);
      const invalid = await api("/api/jobs/manual/runs", {
        method: "POST",
        headers: json,
        body: '{"limit":0}',
      });
      expect(
        ((await invalid.json()) as { error: { issues: unknown[] } }).error.issues,
      ).toHaveLength(1);
      expect((await api("/api/jobs/ghost/runs", { method: "POST" })).status).toBe(404);
      expect((await api("/api/runs/ghost_20260101T000000Z_000000")).status).toBe(404);

      const t = Date.now();
      const [serveCode, workerCode] = await Promise.all([serve.terminate(), worker.terminate()]);
      expect({ serveCode, workerCode }).toEqual({ serveCode: 0, workerCode: 0 });
      expect(Date.now() - t).toBeLessThan(10_000);
      expect(serve.stderr()).toContain('"msg":"serve stopped"');
      expect(worker.stderr()).toContain('"msg":"worker stopped"');
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    } finally {
      await stopAll([serve, worker]);
    }
  });

  it("SIGTERM with a run in flight: the run is stopped after the grace period, its lease released, exit 0", async () => {
    const { cwd, env, cli } = await setup(h, "server:\n  shutdown_grace_seconds: 1\n");
    await cli(
      "job",
      "add",
      "sleepy",
      "--type",
      "test.echo",
      "--params",
      '{"message":"z","sleep_ms":60000}',
    );
    const serve = startCli(["serve", "--port", "0"], { cwd, env });
    try {
      const [, url] = (await serve.waitFor(/Listening on (http:\/\/\S+)/)) as RegExpMatchArray;
      const post = await fetch(`${url}/api/jobs/sleepy/runs`, { method: "POST", headers: auth });
      const { runId } = (await post.json()) as { runId: string };
      await serve.waitFor(/"msg":"run started"/);
      const t = Date.now();
      expect(await serve.terminate()).toBe(0);
      expect(Date.now() - t).toBeLessThan(8000);
      const run = JSON.parse((await cli("runs", "show", runId, "--json")).stdout) as RunJson & {
        error: string;
      };
      expect(run.status).toBe("failed");
      // The lease is free again: the job can run right away (exit 0, not 3 = already running).
      await cli("job", "update", "sleepy", "--params", '{"message":"again"}');
      expect((await cli("run", "sleepy")).code).toBe(0);
    } finally {
      await stopAll([serve]);
    }
  });
});
