import { randomBytes } from "node:crypto";
import { expect, it, onTestFinished } from "vitest";
import { openQueue } from "../../src/engine/queue/open-queue.ts";
import { PermanentQueueError } from "../../src/engine/queue/queue-errors.ts";
import { openRuntime } from "../../src/engine/runtime/open-runtime.ts";
import { loadConfig } from "../../src/infra/config/load-config.ts";
import { silentLogger } from "../../src/infra/logging/logger.ts";
import { type DialectHarness, describeEachDialect } from "../../src/testing/dialects.ts";
import { waitFor } from "../../src/testing/queue/wait-for.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testRegistry } from "../../src/testing/test-pipeline.ts";
import { cliEnv } from "./cli-env.ts";

/** A queue `name` holding one dead-lettered message, made by a worker of the same config. */
async function withDeadLetter(h: DialectHarness, extraEnv: NodeJS.ProcessEnv) {
  const base = await cliEnv(h);
  const o = { cwd: base.cwd, env: { ...base.env, ...extraEnv }, registry: testRegistry() };
  const runtime = await openRuntime({
    config: loadConfig({ cwd: o.cwd, env: o.env }),
    registry: o.registry,
    logger: silentLogger(),
  });
  const queue = await openQueue(runtime);
  onTestFinished(async () => {
    await queue.close();
    await runtime.close();
  });
  const name = `cli.${randomBytes(3).toString("hex")}`;
  const id = (await queue.send(name, { order: 42 }))!;
  await queue.work(name, { pollIntervalMs: 20 }, async () => {
    throw new PermanentQueueError("supplier said no");
  });
  await waitFor("dead", async () => (await queue.getMessage(name, id))?.state === "dead");
  await queue.stop();
  const cli = (...argv: string[]) => runCli(argv, o);
  return { cli, queue, name, id };
}

function inspectAndRetry(h: DialectHarness, extraEnv: NodeJS.ProcessEnv = {}) {
  return async () => {
    const { cli, queue, name, id } = await withDeadLetter(h, extraEnv);

    let r = await cli("queue", "stats");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`${name.replace(".", "\\.")}\\s+0\\s+0\\s+1\\s+0s`));
    r = await cli("queue", "dead", name);
    expect(r.stdout).toMatch(new RegExp(`${id}\\s+1\\s+\\S+\\s+supplier said no`));
    const listed = JSON.parse((await cli("queue", "dead", name, "--json")).stdout);
    expect(listed).toMatchObject([{ id, state: "dead", payload: { order: 42 } }]);

    r = await cli("queue", "retry", name);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/give the message ids to retry, or --all/);
    expect((await cli("queue", "retry", name, id, "--all")).code).toBe(2);

    r = await cli("queue", "retry", name, id, "no-such-id");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`1 message(s) of ${name} back in the queue.\n  ${id}\n`);
    expect(r.stdout).toContain("not retried: no-such-id");
    expect(await queue.getMessage(name, id)).toMatchObject({ state: "queued", attempts: 0 });
    expect((await cli("queue", "dead", name)).stdout).toContain("No dead-lettered messages");

    r = await cli("queue", "retry", name, "--all");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`0 message(s) of ${name} back in the queue.`);
  };
}

describeEachDialect("tidemark queue", (h) => {
  it("stats, dead and retry on the embedded queue", inspectAndRetry(h));

  if (h.dialect === "postgres") {
    it(
      "stats, dead and retry on pg-boss",
      inspectAndRetry(h, { TIDEMARK_QUEUE: "pg-boss", TIDEMARK_PG_BOSS_SCHEMA: "pgboss_cli_q" }),
      40_000,
    );
  }

  it("dead and retry refuse an unknown queue with exit 2, listing the known ones", async () => {
    const o = { ...(await cliEnv(h)), registry: testRegistry() };
    for (const argv of [
      ["queue", "dead", "nope"],
      ["queue", "retry", "nope", "--all"],
    ]) {
      const r = await runCli(argv, o);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr).toBe('tidemark: unknown queue "nope"; known queues: tidemark.run\n');
      expect(r.stdout).toBe("");
    }
    const known = await runCli(["queue", "dead", "tidemark.run"], o);
    expect(known).toMatchObject({
      code: 0,
      stdout: "No dead-lettered messages in tidemark.run.\n",
    });
  });

  it("with no messages at all, stats says so", async () => {
    const o = { ...(await cliEnv(h)), registry: testRegistry() };
    const r = await runCli(["queue", "stats"], o);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("No messages.\n");
  });
});

describeEachDialect("tidemark queue: an unreachable pg-boss database", (h) => {
  it("is one line naming it, password hidden, exit 2", async () => {
    const o = { ...(await cliEnv(h)), registry: testRegistry() };
    const env = {
      ...o.env,
      TIDEMARK_QUEUE: "pg-boss",
      TIDEMARK_PG_BOSS_URL: "postgres://tm:hunter2-secret@127.0.0.1:1/x",
    };
    const r = await runCli(["queue", "stats"], { ...o, env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /^tidemark: queue pg-boss at postgres:\/\/tm:\*\*\*@127\.0\.0\.1:1\/x: connection refused .*\n$/,
    );
    expect(r.stderr).not.toContain("hunter2");
  });
});
