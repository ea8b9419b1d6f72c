// A worker SIGKILLed after a requested run ended but before the message was acknowledged: the
// broker redelivers the request, and the next worker must not run the job a second time.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { RUN_QUEUE, RUN_SEND_DEFAULTS } from "../../src/engine/run-requests/run-request.ts";
import { newRunId } from "../../src/engine/runs/run-id.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openQueueFromSpec } from "../../src/testing/queue/queue-spec.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testRegistry } from "../../src/testing/test-pipeline.ts";
import { cliEnv } from "../cli/cli-env.ts";
import { eventually, startCli } from "./child-cli.ts";

describeEachDialect("exactly-once run requests on pg-boss", (h) => {
  it.skipIf(h.dialect !== "postgres")(
    "a worker killed between the run and its acknowledgement: one run record per request",
    { timeout: 120_000 },
    async () => {
      const { cwd, env, target } = await cliEnv(h);
      if (target.dialect !== "postgres") return;
      writeFileSync(
        path.join(cwd, "tidemark.yaml"),
        "queue: pg-boss\npg_boss:\n  maintenance_interval_seconds: 1\n",
      );
      const cli = (...args: string[]) => runCli(args, { cwd, env, registry: testRegistry() });
      expect(
        (await cli("job", "add", "once", "--type", "test.echo", "--params", '{"message":"m"}'))
          .code,
      ).toBe(0);

      // The request, sent with a short visibility so the dead worker's message comes back soon.
      const { queue, close } = await openQueueFromSpec({
        engine: "pg-boss",
        url: target.url,
        schema: "pgboss",
        maintenanceIntervalSeconds: 1,
      });
      const runId = newRunId("once", new Date(Math.floor(Date.now() / 1000) * 1000));
      let messageId: string | null;
      try {
        messageId = await queue.send(
          RUN_QUEUE,
          { job: "once", dryRun: false, limit: null, requestedBy: "api", runId },
          {
            ...RUN_SEND_DEFAULTS,
            visibilityTimeoutSeconds: 2,
            retryDelaySeconds: 0,
            retryBackoff: false,
          },
        );
      } finally {
        await close();
      }

      const doomed = startCli(["worker"], {
        cwd,
        env: { ...env, TIDEMARK_TEST_KILL_AFTER_RUN: "1" },
      });
      expect(await doomed.exited).toBeNull(); // SIGKILLed by its own hook, after the run
      const afterKill = JSON.parse((await cli("runs", "ls", "--job", "once", "--json")).stdout);
      expect(afterKill.map((r: { runId: string; status: string }) => [r.runId, r.status])).toEqual([
        [runId, "succeeded"],
      ]);

      const worker = startCli(["worker"], { cwd, env });
      try {
        await worker.waitFor(/already ran: acknowledged, not run again/, 60_000);
        const reopened = await openQueueFromSpec({
          engine: "pg-boss",
          url: target.url,
          schema: "pgboss",
          maintenanceIntervalSeconds: 1,
        });
        try {
          await eventually(
            async () =>
              (await reopened.queue.getMessage(RUN_QUEUE, messageId!))?.state === "completed"
                ? true
                : undefined,
            "the redelivered message to complete",
          );
        } finally {
          await reopened.close();
        }
        const runs = JSON.parse((await cli("runs", "ls", "--job", "once", "--json")).stdout);
        expect(runs).toHaveLength(1);
      } finally {
        await worker.terminate();
      }
    },
  );
});
