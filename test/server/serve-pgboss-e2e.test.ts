import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testRegistry } from "../../src/testing/test-pipeline.ts";
import { cliEnv } from "../cli/cli-env.ts";
import { eventually, startCli } from "./child-cli.ts";

const TOKEN = "pgboss-token-0123456789ab";
const auth = { authorization: `Bearer ${TOKEN}` };

interface RunJson {
  runId: string;
  status: string;
  startedAt: string;
  pid: number;
}

describeEachDialect("tidemark serve on pg-boss (end to end)", (h) => {
  it.skipIf(h.dialect !== "postgres")(
    "two serve processes fire a pg-boss schedule once; a worker runs it and an HTTP request",
    { timeout: 240_000 },
    async () => {
      const { cwd, env: base } = await cliEnv(h);
      writeFileSync(
        path.join(cwd, "tidemark.yaml"),
        "queue: pg-boss\nserver:\n  shutdown_grace_seconds: 5\n",
      );
      const env = { ...base, TIDEMARK_API_TOKENS: TOKEN };
      const cli = (...args: string[]) => runCli(args, { cwd, env, registry: testRegistry() });
      expect((await cli("db", "migrate")).code).toBe(0);
      const echo = ["--type", "test.echo", "--params", '{"message":"m"}'];
      await cli("job", "add", "minutely", ...echo, "--schedule", "* * * * *");
      await cli("job", "add", "manual", ...echo);

      const serveA = startCli(["serve", "--port", "0", "--no-workers"], { cwd, env });
      const serveB = startCli(["serve", "--port", "0", "--no-workers"], { cwd, env });
      const worker = startCli(["worker"], { cwd, env });
      const all = [serveA, serveB, worker];
      try {
        const urls = await Promise.all(
          [serveA, serveB].map(
            async (s) => (await s.waitFor(/Listening on (http:\/\/\S+)/, 60_000))[1],
          ),
        );
        await worker.waitFor(/Working on tidemark\.run/, 60_000);
        const api = (url: string | undefined, p: string, init: RequestInit = {}) =>
          fetch(`${url}${p}`, { ...init, headers: { ...auth, ...init.headers } });

        const post = await api(urls[1], "/api/jobs/manual/runs", { method: "POST" });
        expect(post.status).toBe(202);
        const { runId } = (await post.json()) as { runId: string };
        const manual = await eventually(async () => {
          const run = (await (await api(urls[0], `/api/runs/${runId}`)).json()) as RunJson;
          return run.status === "succeeded" ? run : undefined;
        }, "the HTTP run");
        expect(manual.pid).toBe(worker.pid);

        // pg-boss's timekeeper checks schedules every 30 s: the first fire comes within ~40 s
        // on an idle machine; a CI machine busy with other suites can take much longer.
        let seen: RunJson[] = [];
        const runs = await eventually(
          async () => {
            const { runs } = (await (await api(urls[0], "/api/runs?job=minutely")).json()) as {
              runs: RunJson[];
            };
            seen = runs;
            return runs.some((r) => r.status === "succeeded") ? runs : undefined;
          },
          "the scheduled run",
          180_000,
        ).catch((err: Error) => {
          // What the processes said about the schedule says why it did not run.
          const said = all.flatMap((c) =>
            (c.stdout() + c.stderr()).split("\n").filter((l) => /fire|schedul|minutely/i.test(l)),
          );
          throw new Error(`${err.message}; runs: ${JSON.stringify(seen)}\n${said.join("\n")}`);
        });
        expect(runs.every((r) => r.pid === worker.pid)).toBe(true);
        // Each occurrence (minute) ran once although two schedulers were up.
        const minutes = runs.map((r) => r.startedAt.slice(0, 16));
        expect(new Set(minutes).size).toBe(minutes.length);
        const fired = async (url: string | undefined) => {
          const text = await (await api(url, "/metrics")).text();
          // Every outcome counts: a duplicate fire dropped by the queue would show as skipped.
          const pattern = /tidemark_scheduler_fires_total\{job="minutely",outcome="[^"]+"\} (\d+)/g;
          return [...text.matchAll(pattern)].reduce((sum, m) => sum + Number(m[1]), 0);
        };
        const total = (await fired(urls[0])) + (await fired(urls[1]));
        expect(total).toBe(runs.length);

        const codes = await Promise.all(all.map((c) => c.terminate()));
        expect(codes).toEqual([0, 0, 0]);
      } finally {
        await Promise.all(all.map((c) => c.terminate()));
      }
    },
  );
});
