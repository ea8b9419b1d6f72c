import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testRegistry } from "../../src/testing/test-pipeline.ts";
import { cliEnv } from "../cli/cli-env.ts";
import { startCli } from "./child-cli.ts";

const TOKEN = "e2e-token-0123456789abcdef";

describeEachDialect("POST /api/jobs/{name}/runs with an Idempotency-Key", (h) => {
  it("a retry answers the first run with Idempotent-Replayed; other options are 422", async () => {
    const { cwd, env: base } = await cliEnv(h);
    writeFileSync(path.join(cwd, "tidemark.yaml"), "server:\n  shutdown_grace_seconds: 5\n");
    const env = { ...base, TIDEMARK_API_TOKENS: TOKEN };
    const cli = (...args: string[]) => runCli(args, { cwd, env, registry: testRegistry() });
    expect((await cli("db", "migrate")).code).toBe(0);
    expect(
      (await cli("job", "add", "manual", "--type", "test.echo", "--params", '{"message":"m"}'))
        .code,
    ).toBe(0);
    // No workers: every request stays queued, so each answer shows what was queued.
    const serve = startCli(["serve", "--port", "0", "--no-workers"], { cwd, env });
    try {
      const [, url] = (await serve.waitFor(/Listening on (http:\/\/\S+)/)) as RegExpMatchArray;
      const post = (key: string | undefined, body: string) =>
        fetch(`${url}/api/jobs/manual/runs`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${TOKEN}`,
            "content-type": "application/json",
            ...(key === undefined ? {} : { "idempotency-key": key }),
          },
          body,
        });

      const first = await post("retry-me", '{"limit":3}');
      expect(first.status).toBe(202);
      expect(first.headers.get("idempotent-replayed")).toBeNull();
      const queued = (await first.json()) as { run_id: string };
      const again = await post("retry-me", '{"limit":3}');
      expect(again.status).toBe(202);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.headers.get("location")).toBe(`/api/runs/${queued.run_id}`);
      expect(await again.json()).toMatchObject({ run_id: queued.run_id, limit: 3 });

      const other = await post("retry-me", '{"limit":4}');
      expect(other.status).toBe(422);
      expect(await other.json()).toMatchObject({
        error: { code: "idempotency_key_reused", message: expect.stringContaining("limit 3") },
      });
      expect((await post("has space", "{}")).status).toBe(400);
      // Without a key every POST queues a run of its own.
      expect((await post(undefined, '{"limit":3}')).status).toBe(202);

      const listed = await fetch(`${url}/api/runs/${queued.run_id}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(await listed.json()).toMatchObject({ runId: queued.run_id, status: "queued" });
    } finally {
      await serve.terminate();
    }
  });
});
