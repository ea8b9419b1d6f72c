import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it, onTestFinished } from "vitest";
import { loadConfig } from "../../infra/config/load-config.ts";
import { silentLogger } from "../../infra/logging/logger.ts";
import type { DialectHarness } from "../../testing/dialects.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { waitFor } from "../../testing/queue/wait-for.ts";
import { runCli } from "../../testing/run-cli.ts";
import { testRegistry } from "../../testing/test-pipeline.ts";
import { openQueue } from "../queue/open-queue.ts";
import type { Queue } from "../queue/queue.ts";
import { RunRepo } from "../runs/run-repo.ts";
import { openRuntime } from "../runtime/open-runtime.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { startQueueWorkers } from "../workers/queue-workers.ts";
import { RUN_QUEUE } from "./run-request.ts";
import { runRequestHandler } from "./run-request-handler.ts";

const registry = testRegistry();

/** A working directory and environment pointing the CLI at a fresh database. */
async function cliEnv(h: DialectHarness, extra: NodeJS.ProcessEnv = {}) {
  const cwd = mkdtempSync(path.join(tmpdir(), "tm-runq-"));
  onTestFinished(() => rmSync(cwd, { recursive: true, force: true }));
  const target = await h.freshTarget();
  const url = target.dialect === "postgres" ? target.url : `sqlite:${target.path}`;
  const env = { TIDEMARK_DATABASE_URL: url, TIDEMARK_DATA_DIR: path.join(cwd, "data"), ...extra };
  return { cwd, env, registry };
}

/** What a `tidemark worker` would open: the runtime and queue of the same configuration. */
async function openWorkerSide(o: {
  cwd: string;
  env: NodeJS.ProcessEnv;
}): Promise<{ runtime: Runtime; queue: Queue }> {
  const config = loadConfig({ cwd: o.cwd, env: o.env });
  const runtime = await openRuntime({ config, registry, logger: silentLogger() });
  const queue = await openQueue(runtime);
  onTestFinished(async () => {
    await queue.close();
    await runtime.close();
  });
  return { runtime, queue };
}

function checkQueueThenRun(
  h: DialectHarness,
  extraEnv: NodeJS.ProcessEnv,
  engine: Queue["engine"],
) {
  return async () => {
    const o = await cliEnv(h, extraEnv);
    const cli = (...argv: string[]) => runCli(argv, o);
    expect(
      (await cli("job", "add", "hello", "--type", "test.echo", "--params", '{"message":"hi"}'))
        .code,
    ).toBe(0);

    const r = await cli("run", "hello", "--queue", "--limit", "2", "--dry-run");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const id = /^hello: queued \(message ([0-9a-f-]{36})\)$/m.exec(r.stdout)?.[1];
    expect(id).toBeDefined();
    const json = JSON.parse((await cli("run", "hello", "--queue", "--json")).stdout);
    expect(json).toEqual({ job: "hello", queue: RUN_QUEUE, messageId: expect.any(String) });

    const { runtime, queue } = await openWorkerSide(o);
    expect(queue.engine).toBe(engine);
    // Queued, not run: nothing recorded until a worker takes the requests.
    expect(await new RunRepo(runtime.db).list()).toEqual([]);
    const first = await queue.getMessage(RUN_QUEUE, id!);
    expect(first).toMatchObject({
      state: "queued",
      payload: {
        job: "hello",
        dryRun: true,
        limit: 2,
        requestedBy: expect.stringMatching(/^cli:/),
      },
    });

    await startQueueWorkers(runtime, queue, [runRequestHandler], { work: { pollIntervalMs: 50 } });
    const runs = await waitFor("two recorded runs", async () => {
      const list = await new RunRepo(runtime.db).list({ jobName: "hello" });
      return list.filter((x) => x.status !== "running").length === 2 && list;
    });
    const dry = runs.find((x) => x.dryRun);
    expect(dry).toMatchObject({ status: "succeeded", summary: { limit: 2, dry_run: true } });
    expect(runs.find((x) => !x.dryRun)).toMatchObject({
      status: "succeeded",
      summary: { limit: null },
    });
    await waitFor(
      "completed",
      async () => (await queue.getMessage(RUN_QUEUE, id!))?.state === "completed",
    );
  };
}

describeEachDialect("tidemark run --queue", (h) => {
  it(
    "queues a run request and prints its id; a worker then runs the job",
    checkQueueThenRun(h, {}, "embedded"),
  );

  if (h.dialect === "postgres") {
    it(
      "with queue: pg-boss the request goes through pg-boss",
      checkQueueThenRun(
        h,
        { TIDEMARK_QUEUE: "pg-boss", TIDEMARK_PG_BOSS_SCHEMA: "pgboss_cli" },
        "pg-boss",
      ),
      40_000,
    );
  }

  it("an unknown job exits 2 and queues nothing", async () => {
    const o = await cliEnv(h);
    const r = await runCli(["run", "nope", "--queue"], o);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown job "nope"');
    const { queue } = await openWorkerSide(o);
    expect(await queue.stats()).toEqual([]);
  });

  it("the run handler: a failed run completes its message; a deleted job is dead-lettered at once", async () => {
    const o = await cliEnv(h);
    const cli = (...argv: string[]) => runCli(argv, o);
    await cli(
      "job",
      "add",
      "bad",
      "--type",
      "test.echo",
      "--params",
      '{"message":"m","fail":true}',
    );
    await cli("job", "add", "gone", "--type", "test.echo", "--params", '{"message":"m"}');
    const bad = JSON.parse((await cli("run", "bad", "--queue", "--json")).stdout).messageId;
    const gone = JSON.parse((await cli("run", "gone", "--queue", "--json")).stdout).messageId;
    expect((await cli("job", "rm", "gone", "--yes")).code).toBe(0);

    const { runtime, queue } = await openWorkerSide(o);
    await startQueueWorkers(runtime, queue, [runRequestHandler], { work: { pollIntervalMs: 50 } });
    const dead = await waitFor("gone dead-lettered", async () => {
      const m = await queue.getMessage(RUN_QUEUE, gone);
      return m?.state === "dead" && m;
    });
    expect(dead).toMatchObject({ attempts: 1, lastError: 'unknown job "gone"' });
    await waitFor(
      "bad completed",
      async () => (await queue.getMessage(RUN_QUEUE, bad))?.state === "completed",
    );
    const [run] = await new RunRepo(runtime.db).list({ jobName: "bad" });
    expect(run).toMatchObject({ status: "failed", error: "echo failed: m" });
  });

  it("a run of a job that is already running is retried later, not dropped", async () => {
    const o = await cliEnv(h);
    const cli = (...argv: string[]) => runCli(argv, o);
    await cli("job", "add", "busy", "--type", "test.echo", "--params", '{"message":"m"}');
    const { runtime, queue } = await openWorkerSide(o);
    // Someone else holds the job's lease.
    await runtime.leases.tryAcquire("job:busy", "someone-else", 60_000);
    const id = await queue.send(
      RUN_QUEUE,
      { job: "busy", requestedBy: "test" },
      { retryDelaySeconds: 0.2, retryBackoff: false },
    );
    await startQueueWorkers(runtime, queue, [runRequestHandler], { work: { pollIntervalMs: 50 } });
    const retrying = await waitFor("a failed attempt", async () => {
      const m = await queue.getMessage(RUN_QUEUE, id!);
      return m?.lastError && m;
    });
    expect(retrying.lastError).toMatch(/job busy is already running \(held by someone-else\)/);
    expect(retrying.state).not.toBe("dead");
    await runtime.leases.release("job:busy", "someone-else");
    await waitFor(
      "completed",
      async () => (await queue.getMessage(RUN_QUEUE, id!))?.state === "completed",
    );
    expect((await new RunRepo(runtime.db).list({ jobName: "busy" }))[0]?.status).toBe("succeeded");
  });
});
