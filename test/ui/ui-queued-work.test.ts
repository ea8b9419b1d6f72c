// A run that fanned work out to the queue is not "succeeded, all fine" while that work fails:
// its page, its job's page and the overview say so, and the queue page shows each message's
// attempts, last error and next attempt, with re-drive and delete behind a confirmation.
import { expect, it, onTestFinished } from "vitest";
import { openQueue } from "../../src/engine/queue/open-queue.ts";
import type { Queue } from "../../src/engine/queue/queue.ts";
import { RunRepo } from "../../src/engine/runs/run-repo.ts";
import type { Runtime } from "../../src/engine/runtime/runtime.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { addEchoJob } from "../../src/testing/echo-job-queue.ts";
import { waitFor } from "../../src/testing/queue/wait-for.ts";
import { openTestRuntime } from "../../src/testing/test-runtime.ts";
import { openUi, storedRun } from "./ui-app.ts";

const Q = "tidemark.run";

type Engine = "embedded" | "pg-boss";

/** The runtime with its queue on `engine` (pg-boss in its own schema of the test database). */
function onEngine(runtime: Runtime, engine: Engine): Runtime {
  const db = runtime.config.database;
  if (engine === "embedded") return runtime;
  if (db.dialect !== "postgres") throw new Error("pg-boss needs the Postgres dialect");
  const queue = { engine, url: db.url, schema: "pgboss", maintenanceIntervalSeconds: 30 } as const;
  return { ...runtime, config: { ...runtime.config, queue } };
}

/**
 * Job `fan` whose succeeded run `fan_1` sent two messages that fail: one dead at once, one
 * waiting ten minutes for its retry. Job `calm` succeeded with nothing queued.
 */
async function fannedOut(
  base: Runtime,
  engine: Engine,
): Promise<{ queue: Queue; dead: string; retrying: string }> {
  const runtime = onEngine(base, engine);
  const now = runtime.clock.now().toISOString();
  await addEchoJob(runtime, "calm");
  await addEchoJob(runtime, "fan");
  const repo = new RunRepo(runtime.db);
  await repo.insertFinished(storedRun("calm", "calm_1", { startedAt: now, finishedAt: now }));
  await repo.insertFinished(storedRun("fan", "fan_1", { startedAt: now, finishedAt: now }));
  const fromRun = await openQueue({ ...runtime, runId: "fan_1" });
  const dead = (await fromRun.send(Q, { n: 1 }, { retryLimit: 0 }))!;
  const retrying = (await fromRun.send(Q, { n: 2 }, { retryLimit: 3, retryDelaySeconds: 600 }))!;
  await fromRun.close();
  const queue = await openQueue(runtime);
  onTestFinished(() => queue.close());
  await queue.work(Q, { pollIntervalMs: 50 }, async () => {
    throw new Error("POST https://api.example.test/v2/search answered 503");
  });
  await waitFor("both messages failed", async () => {
    const [a, b] = await Promise.all([queue.getMessage(Q, dead), queue.getMessage(Q, retrying)]);
    return a?.state === "dead" && b?.lastError;
  });
  await queue.stop({ graceMs: 0 });
  return { queue, dead, retrying };
}

describeEachDialect("dashboard: a run's queued work", (h) => {
  const engines: Engine[] = h.dialect === "postgres" ? ["embedded", "pg-boss"] : ["embedded"];
  for (const engine of engines) {
    it(`the run, its job and the overview show the failing messages the run sent (${engine})`, async () => {
      const runtime = await openTestRuntime(h);
      const { queue, dead, retrying } = await fannedOut(runtime, engine);
      const { get } = await openUi(runtime, { queue });

      const run = await get("/ui/runs/fan_1");
      expect(run.text).toContain("2 queued messages failing");
      expect(run.text).toContain('data-children="dead">1 dead');
      expect(run.text).toContain('data-children="retrying">1 retrying');
      expect(run.text).toContain(dead);
      expect(run.text).toContain(retrying);
      expect(run.text).toContain("answered 503");

      const overview = await get("/ui/fragments/overview");
      const order = [...overview.text.matchAll(/data-job="([^"]+)"/g)].map((m) => m[1]);
      // Its run succeeded, but its work fails: it comes first, with the warning.
      expect(order).toEqual(["fan", "calm"]);
      const at = overview.text.indexOf('data-job="fan"');
      const fanRow = overview.text.slice(at, overview.text.indexOf("</tr>", at));
      expect(fanRow).toContain("2 queued messages failing");
      expect(overview.text).toContain('href="/ui/jobs/fan"');

      const job = await get("/ui/jobs/fan");
      expect(job.status).toBe(200);
      expect(job.text).toContain("2 queued messages failing");
    });

    it(`the queue page lists attempts, last error and next retry; delete and re-drive ask first (${engine})`, async () => {
      const runtime = await openTestRuntime(h);
      const { queue, dead, retrying } = await fannedOut(runtime, engine);
      const { get, post } = await openUi(runtime, { queue });

      const page = await get("/ui/queue");
      expect(page.text).toContain('data-figure="retrying">1<');
      expect(page.text).toContain('data-figure="dead">1<');
      const row = (id: string) => {
        const at = page.text.indexOf(`data-message="${id}"`);
        return page.text.slice(at, page.text.indexOf("</tr>", at));
      };
      expect(row(retrying)).toContain('data-state="retrying"');
      expect(row(retrying)).toContain("answered 503");
      // Its next attempt: the retry delay (ten minutes) ahead, doubled by pg-boss's backoff.
      expect(row(retrying)).toMatch(/in (9|1\d|20) min/);
      expect(row(dead)).toContain(`aria-label="Re-drive message ${dead}"`);

      const ask = await post("/ui/queue/delete", `queue=${Q}&id=${retrying}`);
      expect(ask.status).toBe(200);
      expect(ask.text).toContain(`Delete message ${retrying} of ${Q} for good?`);
      expect(await queue.getMessage(Q, retrying)).not.toBeNull();
      const done = await post("/ui/queue/delete", `queue=${Q}&id=${retrying}&confirmed=yes`);
      expect(done).toMatchObject({ status: 303, location: "/ui/queue" });
      expect(await queue.getMessage(Q, retrying)).toBeNull();

      const redrive = await post("/ui/queue/redrive", `queue=${Q}&id=${dead}&confirmed=yes`);
      expect(redrive.status).toBe(303);
      expect((await queue.getMessage(Q, dead))?.state).toBe("queued");
      expect(
        (await post("/ui/queue/delete", `queue=${Q}&id=${dead}`, { csrf: false })).status,
      ).toBe(403);
      expect((await post("/ui/queue/delete", `queue=nope&id=${dead}`)).status).toBe(400);
    });
  }

  it("a run that sent more messages than the page lists counts them all", async () => {
    const runtime = await openTestRuntime(h);
    const now = runtime.clock.now().toISOString();
    await new RunRepo(runtime.db).insertFinished(
      storedRun("wide", "wide_1", { startedAt: now, finishedAt: now }),
    );
    const fromRun = await openQueue({ ...runtime, runId: "wide_1" });
    const payloads = Array.from({ length: 205 }, (_, n) => ({
      payload: { n },
      options: { startAfterSeconds: 3600 },
    }));
    await fromRun.sendBatch(Q, payloads);
    await fromRun.close();
    const queue = await openQueue(runtime);
    onTestFinished(() => queue.close());
    const { get } = await openUi(runtime, { queue });
    const run = await get("/ui/runs/wide_1");
    expect(run.text).toContain("(205 messages this run sent)");
    expect(run.text).toContain('data-children="waiting">200 waiting');
    expect(run.text).toContain("5 more not shown.");
  });

  it("a job page: schedule, next fires, success rate, last error in full; 404 for no such job", async () => {
    const runtime = await openTestRuntime(h);
    await addEchoJob(runtime, "nightly");
    const now = runtime.clock.now().toISOString();
    const repo = new RunRepo(runtime.db);
    await repo.insertFinished(storedRun("nightly", "n_1", { startedAt: now, finishedAt: now }));
    const long = `first line\n${"x".repeat(400)} the end of the error`;
    await repo.insertFinished(
      storedRun(
        "nightly",
        "n_2",
        { startedAt: now, finishedAt: now },
        { status: "failed", error: long },
      ),
    );
    const { get, post } = await openUi(runtime);
    const page = await get("/ui/jobs/nightly");
    expect(page.text).toContain("data-success-rate>50% of the last 2 finished runs");
    expect(page.text).toContain("the end of the error");
    expect(page.text).toContain("manual (no schedule)");
    expect(page.text).toContain('aria-label="Run nightly now"');
    const off = await post("/ui/jobs/nightly/enabled", "enabled=false&back=/ui/jobs/nightly");
    expect(off).toMatchObject({ status: 303, location: "/ui/jobs/nightly" });
    const evil = await post("/ui/jobs/nightly/enabled", "enabled=true&back=https://evil.test/");
    expect(evil.location).toBe("/ui");
    expect((await get("/ui/jobs/no-such")).status).toBe(404);
  });
});
