import { createHmac } from "node:crypto";
import { Writable } from "node:stream";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../infra/logging/logger.ts";
import { describeEachDialect } from "../../testing/dialects.ts";
import { ManualClock } from "../../testing/manual-clock.ts";
import { openTestRuntime } from "../../testing/test-runtime.ts";
import { type FakeServer, startFakeServer } from "../fakes/fake-server.ts";
import { executeRun } from "../runs/job-runner.ts";
import { RunRepo } from "../runs/run-repo.ts";
import { type RunEndedEvent, RunEvents } from "./run-events.ts";
import { WebhookNotifier, type WebhookNotifierOptions } from "./webhook-notifier.ts";

const ok = () => new Response("ok");

function failed(over: Partial<RunEndedEvent> = {}): RunEndedEvent {
  return {
    runId: "nightly_20260101T020000Z_0a1b2c",
    jobName: "nightly",
    jobType: "test.echo",
    status: "failed",
    startedAt: "2026-01-01T02:00:00.000Z",
    finishedAt: "2026-01-01T02:00:03.000Z",
    error: "echo failed: boom",
    dryRun: false,
    ...over,
  };
}

/** A logger whose lines land in `lines`. */
function capturingLogger(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const dest = new Writable({
    write(chunk, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { logger: pino({ level: "info" }, dest), lines };
}

function notifier(server: FakeServer, over: Partial<WebhookNotifierOptions> = {}) {
  return new WebhookNotifier({
    url: `${server.url}/hooks/T000/secret-path-token`,
    retries: 3,
    timeoutMs: 2000,
    env: "prod",
    logger: silentLogger(),
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    ...over,
  });
}

describe("failure webhook", () => {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("POSTs the failure as JSON, signed, with a link, retrying 5xx with backoff", async () => {
    server = await startFakeServer(ok, { faults: { statusSequence: [500, 503] } });
    const n = notifier(server, { secret: "s3cret", publicUrl: "https://tm.example/base/" });
    const outcome = await n.notify(failed());
    expect(outcome).toEqual({ runId: failed().runId, delivered: true, attempts: 3 });
    expect(server.requests).toHaveLength(3);
    const last = server.requests[2]!;
    expect(last.method).toBe("POST");
    expect(last.headers["content-type"]).toBe("application/json");
    expect(last.headers["x-tidemark-delivery"]).toBe(failed().runId);
    const expectedSig = createHmac("sha256", "s3cret").update(last.body).digest("hex");
    expect(last.headers["x-tidemark-signature"]).toBe(`sha256=${expectedSig}`);
    expect(JSON.parse(last.body)).toEqual({
      event: "run.failed",
      text: `tidemark (prod): job nightly failed (run ${failed().runId}): echo failed: boom`,
      env: "prod",
      job: "nightly",
      job_type: "test.echo",
      run_id: failed().runId,
      status: "failed",
      error: "echo failed: boom",
      started_at: "2026-01-01T02:00:00.000Z",
      finished_at: "2026-01-01T02:00:03.000Z",
      dry_run: false,
      link: `https://tm.example/base/api/runs/${failed().runId}`,
    });
  });

  it("gives up after the retries, logging the host but never the URL's secret path", async () => {
    server = await startFakeServer(ok, { faults: { statusSequence: [500, 500, 500, 500, 500] } });
    const { logger, lines } = capturingLogger();
    const n = notifier(server, { retries: 2, logger });
    const outcome = await n.notify(failed());
    expect(outcome.delivered).toBe(false);
    expect(outcome.attempts).toBe(3);
    expect(server.requests).toHaveLength(3);
    const log = lines.join("");
    expect(log).toContain("failure notification not delivered");
    expect(log).toContain(`127.0.0.1:${server.port}`);
    expect(log).not.toContain("secret-path-token");
    expect(outcome.error).not.toContain("secret-path-token");
  });

  it("does not retry a 4xx answer (the receiver rejected the body)", async () => {
    server = await startFakeServer(() => new Response("bad", { status: 400 }));
    const outcome = await notifier(server).notify(failed());
    expect(outcome).toMatchObject({ delivered: false, attempts: 1 });
  });

  it("only failed and abandoned runs are sent; without a public URL the link is null", async () => {
    server = await startFakeServer(ok);
    const events = new RunEvents(silentLogger());
    const n = notifier(server);
    n.attach(events);
    events.emitRunEnded(failed({ status: "succeeded", error: null }));
    events.emitRunEnded(failed({ status: "skipped", error: null }));
    events.emitRunEnded(
      failed({
        status: "abandoned",
        error: "lease lost: it expired without renewal (the process died or stalled)",
      }),
    );
    await n.drain(5000);
    expect(server.requests).toHaveLength(1);
    expect(JSON.parse(server.requests[0]!.body)).toMatchObject({
      event: "run.abandoned",
      status: "abandoned",
      link: null,
    });
  });

  it("drain gives up on a receiver that never answers once the time is up", async () => {
    server = await startFakeServer(ok, { faults: { delayMs: 10_000 } });
    const n = notifier(server, { timeoutMs: 60_000 });
    const pending = n.notify(failed());
    expect(n.pending).toBe(1);
    const t = performance.now();
    await n.drain(200);
    expect(performance.now() - t).toBeLessThan(2000);
    expect((await pending).delivered).toBe(false);
    expect(n.pending).toBe(0);
  });
});

describeEachDialect("failure webhook wired to runs", (h) => {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("hears failed runs from the runner and abandoned runs from markAbandoned", async () => {
    server = await startFakeServer(ok);
    const clock = new ManualClock("2026-03-01T10:00:00.000Z");
    const rt = await openTestRuntime(h, { clock });
    expect(rt.events).toBeDefined();
    const n = notifier(server);
    n.attach(rt.events!);

    await executeRun(rt, { jobName: "ok", jobType: "test.echo", params: { message: "m" } });
    const report = await executeRun(rt, {
      jobName: "bad",
      jobType: "test.echo",
      params: { message: "m", fail: true },
    });
    await n.drain(5000);
    expect(server.requests.map((r) => JSON.parse(r.body).run_id)).toEqual([report.runId]);

    // A run whose process died: running row, lease never renewed.
    const runs = new RunRepo(rt.db, rt.events);
    await rt.leases.tryAcquire("job:ghost", "ghost_20260301T100000Z_000000", 1000);
    await runs.insertStarted({
      runId: "ghost_20260301T100000Z_000000",
      jobName: "ghost",
      jobType: "test.echo",
      startedAt: clock.now().toISOString(),
      dryRun: false,
      leaseKey: "job:ghost",
      host: "h",
      pid: 1,
    });
    clock.advance(5000);
    expect(await runs.markAbandoned(clock.now().toISOString())).toEqual([
      "ghost_20260301T100000Z_000000",
    ]);
    expect(await runs.markAbandoned(clock.now().toISOString())).toEqual([]);
    await n.drain(5000);
    expect(server.requests).toHaveLength(2);
    expect(JSON.parse(server.requests[1]!.body)).toMatchObject({
      event: "run.abandoned",
      job: "ghost",
      error: "lease lost: it expired without renewal (the process died or stalled)",
      finished_at: "2026-03-01T10:00:05.000Z",
    });
  });
});
