import { randomBytes } from "node:crypto";
import { expect, it, onTestFinished, test } from "vitest";
import { z } from "zod";
import { openQueue } from "../../src/engine/queue/open-queue.ts";
import type { Queue } from "../../src/engine/queue/queue.ts";
import { definePipeline } from "../../src/engine/registry/pipeline-definition.ts";
import {
  defineQueueHandler,
  sendBatchTo,
  sendTo,
} from "../../src/engine/registry/queue-handler-definition.ts";
import { Registry } from "../../src/engine/registry/registry.ts";
import { openRuntime } from "../../src/engine/runtime/open-runtime.ts";
import { loadConfig } from "../../src/infra/config/load-config.ts";
import { silentLogger } from "../../src/infra/logging/logger.ts";
import { type DialectHarness, describeEachDialect } from "../../src/testing/dialects.ts";
import { waitFor } from "../../src/testing/queue/wait-for.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testPipeline } from "../../src/testing/test-pipeline.ts";
import { cliEnv } from "./cli-env.ts";

/** Handled payloads and failures so far, per test tag. */
const handled = new Map<string, number[]>();
const attempts = new Map<string, number>();

const step = defineQueueHandler({
  name: "drain.step",
  description: "records n; fans out `fanout` children; fails its first `failFirst` attempts",
  payload: z.strictObject({
    tag: z.string(),
    n: z.number().int(),
    fanout: z.number().int().default(0),
    failFirst: z.number().int().default(0),
  }),
  work: { concurrency: 4, pollIntervalMs: 50 },
  send: { retryLimit: 2, retryDelaySeconds: 1, retryBackoff: false },
  async handle(ctx, p) {
    const key = `${p.tag}:${p.n}`;
    const tries = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, tries);
    if (tries <= p.failFirst) throw new Error(`step ${p.n} failed (attempt ${tries})`);
    if (p.fanout > 0) {
      const children = Array.from({ length: p.fanout }, (_, i) => ({
        payload: { tag: p.tag, n: p.n * 100 + i + 1 },
      }));
      await sendBatchTo(ctx.queue, step, children);
    }
    handled.set(p.tag, [...(handled.get(p.tag) ?? []), p.n]);
  },
});

const drainPipeline = definePipeline({
  name: "drain",
  description: "test pipeline for worker --drain",
  jobTypes: [],
  queueHandlers: [step],
});

/** A CLI on a fresh database with the drain pipeline, and a queue on the same configuration. */
async function setup(h: DialectHarness, extraEnv: NodeJS.ProcessEnv = {}) {
  const base = await cliEnv(h, "tm-drain-");
  const registry = new Registry([testPipeline, drainPipeline]);
  const o = { cwd: base.cwd, env: { ...base.env, ...extraEnv }, registry };
  expect((await runCli(["db", "migrate"], o)).code).toBe(0);
  const runtime = await openRuntime({
    config: loadConfig({ cwd: o.cwd, env: o.env }),
    registry,
    logger: silentLogger(),
  });
  const queue = await openQueue(runtime);
  onTestFinished(async () => {
    await queue.close();
    await runtime.close();
  });
  const tag = randomBytes(4).toString("hex");
  return { cli: (...argv: string[]) => runCli(argv, o), queue, tag };
}

async function pending(queue: Queue): Promise<number> {
  return (await queue.stats()).reduce((n, s) => n + s.queued + s.active, 0);
}

function suite(h: DialectHarness, engine: string, extraEnv: () => NodeJS.ProcessEnv) {
  const it = (name: string, fn: () => Promise<void>) => test(`${engine}: ${name}`, fn, 60_000);

  it("handles every message, those sent by handlers included, then exits 0", async () => {
    const { cli, queue, tag } = await setup(h, extraEnv());
    await sendTo(queue, step, { tag, n: 1, fanout: 5 });
    await sendTo(queue, step, { tag, n: 2, fanout: 3 });
    const r = await cli("worker", "--drain");
    expect(r.code, r.stderr).toBe(0);
    expect(handled.get(tag)?.sort((a, b) => a - b)).toEqual([
      1, 2, 101, 102, 103, 104, 105, 201, 202, 203,
    ]);
    expect(r.stdout).toMatch(
      /^Drained tidemark\.run, drain\.step in \d+\.\d s: 10 message\(s\) handled, 0 failed attempt\(s\), 0 dead-lettered\.\n$/,
    );
    expect(await pending(queue)).toBe(0);
  });

  it("waits out a retry's backoff instead of stopping on an empty-looking queue", async () => {
    const { cli, queue, tag } = await setup(h, extraEnv());
    await sendTo(queue, step, { tag, n: 7, failFirst: 1 });
    const r = await cli("worker", "--drain", "--queue", "drain.step");
    expect(r.code, r.stderr).toBe(0);
    expect(handled.get(tag)).toEqual([7]);
    expect(attempts.get(`${tag}:7`)).toBe(2);
    expect(r.stdout).toContain("1 message(s) handled, 1 failed attempt(s), 0 dead-lettered.");
  });

  it("exits 1 naming a message dead-lettered during the drain, not one dead before it", async () => {
    const { cli, queue, tag } = await setup(h, extraEnv());
    const old = await sendTo(queue, step, { tag, n: 1, failFirst: 9 }, { retryLimit: 0 });
    await queue.work("drain.step", { pollIntervalMs: 20 }, async () => {
      throw new Error("dead before the drain");
    });
    await waitFor(
      "old dead",
      async () => (await queue.getMessage("drain.step", old!))?.state === "dead",
    );
    await queue.stop();
    let r = await cli("worker", "--drain");
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain("0 dead-lettered.");

    const id = await sendTo(queue, step, { tag, n: 2, failFirst: 9 }, { retryLimit: 1 });
    await sendTo(queue, step, { tag, n: 3 });
    r = await cli("worker", "--drain");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("1 message(s) handled, 2 failed attempt(s), 1 dead-lettered.");
    expect(r.stdout).toContain(`  dead: drain.step ${id}: step 2 failed (attempt 2)\n`);
    expect(await pending(queue)).toBe(0);
  });

  it("with nothing queued, exits 0 at once", async () => {
    const { cli } = await setup(h, extraEnv());
    const r = await cli("worker", "--drain");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("0 message(s) handled");
  });

  // Two in-process SQLite connections would block each other's event loop on the file lock:
  // the multi-process SQLite case is the queue conformance suite's.
  const multi =
    h.dialect === "postgres" ? it : (name: string, _fn: unknown) => test.skip(`${engine}: ${name}`);
  multi("two draining workers share the messages; each is handled once; both exit 0", async () => {
    const { cli, queue, tag } = await setup(h, extraEnv());
    await sendBatchTo(
      queue,
      step,
      Array.from({ length: 40 }, (_, i) => ({ payload: { tag, n: i + 1 } })),
    );
    const [a, b] = await Promise.all([cli("worker", "--drain"), cli("worker", "--drain")]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const counts = [a, b].map((r) => Number(/(\d+) message\(s\) handled/.exec(r.stdout)?.[1]));
    expect(counts[0]! + counts[1]!).toBe(40);
    expect(handled.get(tag)?.sort((x, y) => x - y)).toEqual(
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
  });
}

describeEachDialect("tidemark worker --drain", (h) => {
  suite(h, "embedded", () => ({}));

  if (h.dialect === "postgres") {
    suite(h, "pg-boss", () => ({
      TIDEMARK_QUEUE: "pg-boss",
      TIDEMARK_PG_BOSS_SCHEMA: `pgboss_drain_${randomBytes(3).toString("hex")}`,
    }));
  }

  it("refuses an unknown --queue with exit 2, naming the known ones", async () => {
    const { cli } = await setup(h);
    // The same for a draining worker, a long-running worker and serve.
    for (const argv of [
      ["worker", "--drain", "--queue", "drain.nope"],
      ["worker", "--queue", "drain.nope"],
      ["serve", "--insecure-no-auth", "--port", "0", "--queue", "drain.nope"],
    ]) {
      const r = await cli(...argv);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toBe(
        "tidemark: --queue: unknown queue(s) drain.nope; known: tidemark.run, drain.step\n",
      );
    }
  });

  it("refuses --drain with --metrics-port (exit 2, nothing started)", async () => {
    const { cli } = await setup(h);
    const r = await cli("worker", "--drain", "--metrics-port", "0");
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("tidemark: worker: --drain cannot be combined with --metrics-port\n");
  });
});
