// A worker SIGKILLed in the middle of a listCrawl message: the message comes back after its
// visibility timeout, the next worker takes the dead worker's product lease over and crawls
// again; every listing is stored once and every detail check runs (nothing lost or doubled).
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { startMercariFakeServer } from "../../src/pipelines/mercari/fake/start-fake.ts";
import { MERCARI_QUEUE } from "../../src/pipelines/mercari/params.ts";
import { cliEnv } from "../../src/testing/cli-env.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openQueueFromSpec, type QueueSpec } from "../../src/testing/queue/queue-spec.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { enginesFor, SWITCH_GROUP } from "./support/world.ts";

const BIN = fileURLToPath(new URL("../../bin/tidemark.js", import.meta.url));

describeEachDialect("mercari worker killed mid-message", (h) => {
  for (const engine of enginesFor(h)) {
    describe(`queue ${engine}`, () => {
      it("nothing is lost or written twice", { timeout: 180_000 }, async () => {
        const fake = await startMercariFakeServer({ seed: 13, groups: [SWITCH_GROUP] });
        try {
          const { cwd, env, target } = await cliEnv(h, "tm-mercari-kill-");
          const pgBoss = engine === "pg-boss" && target.dialect === "postgres";
          writeFileSync(
            path.join(cwd, "tidemark.yaml"),
            `${pgBoss ? "queue: pg-boss\npg_boss:\n  maintenance_interval_seconds: 1\n" : ""}pipelines:\n  mercari:\n    requests_per_second: 0\n    page_size: 50\n    retry_max_attempts: 1\n`,
          );
          const cliEnvVars = { ...env, TIDEMARK_MERCARI_URL: fake.url };
          const cli = (...args: string[]) => runCli(args, { cwd, env: cliEnvVars });
          const added = await cli(
            "mercari",
            "product",
            "add",
            "--name",
            "S",
            "--keyword",
            "Nintendo Switch",
          );
          expect(added.code, added.stderr).toBe(0);
          const productId = Number(/^Added product (\d+)/.exec(added.stdout)?.[1]);

          const spec: QueueSpec = pgBoss
            ? {
                engine: "pg-boss",
                url: target.dialect === "postgres" ? target.url : "",
                schema: "pgboss",
                maintenanceIntervalSeconds: 1,
              }
            : { engine: "embedded", database: target };
          const opened = await openQueueFromSpec(spec);
          try {
            await opened.queue.send(
              MERCARI_QUEUE,
              { type: "listCrawl", productId },
              {
                visibilityTimeoutSeconds: 2,
                retryDelaySeconds: 0,
                retryBackoff: false,
                singletonKey: `listCrawl:${productId}`,
              },
            );
          } finally {
            await opened.close();
          }

          fake.fake.knobs.latencyMs = 300;
          const child = spawn(process.execPath, [BIN, "worker"], {
            cwd,
            env: {
              ...process.env,
              ...cliEnvVars,
              TIDEMARK_FROM_SOURCE: "1",
              TIDEMARK_LOG_LEVEL: "warn",
            },
            stdio: "ignore",
          });
          const exited = new Promise((resolve) => child.on("exit", resolve));
          await expect
            .poll(() => fake.fake.stats.search, { timeout: 60_000, interval: 50 })
            .toBeGreaterThanOrEqual(2);
          child.kill("SIGKILL");
          await exited;
          expect(fake.fake.stats.search).toBeLessThan(6); // killed before the last page

          fake.fake.knobs.latencyMs = 0;
          const drained = await cli("worker", "--drain");
          expect(drained.code, drained.stderr).toBe(0);

          const results = JSON.parse(
            (await cli("mercari", "results", String(productId), "--json", "--limit", "500")).stdout,
          );
          const expected = fake.fake.catalogue.all().filter((l) => !l.noPrice);
          const ids = results.items.map((r: { external_id: string }) => r.external_id);
          expect(new Set(ids).size).toBe(ids.length);
          expect([...ids].sort()).toEqual(expected.map((l) => l.id).sort());
          const undated = results.items.filter(
            (r: { status: string; sold_out_at: string | null }) =>
              r.status === "sold" && !r.sold_out_at,
          );
          expect(undated).toEqual([]);
        } finally {
          await fake.close();
        }
      });
    });
  }
});
