import { afterEach, expect, it } from "vitest";
import { type FakeServer, startFakeServer } from "../../src/engine/fakes/fake-server.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testRegistry } from "../../src/testing/test-pipeline.ts";
import { cliEnv } from "../cli/cli-env.ts";

describeEachDialect("failure webhook from the CLI", (h) => {
  let receiver: FakeServer | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it("`tidemark run` of a failing job POSTs it to notify.webhook_url before exiting, retrying a 503", async () => {
    receiver = await startFakeServer(() => new Response("ok"), {
      faults: { statusSequence: [503] },
    });
    const { cwd, env: base } = await cliEnv(h);
    const env = {
      ...base,
      TIDEMARK_NOTIFY_WEBHOOK_URL: `${receiver.url}/hook`,
      TIDEMARK_PUBLIC_URL: "https://tm.example",
    };
    const cli = (...args: string[]) => runCli(args, { cwd, env, registry: testRegistry() });
    await cli("job", "add", "ok", "--type", "test.echo", "--params", '{"message":"fine"}');
    await cli(
      "job",
      "add",
      "bad",
      "--type",
      "test.echo",
      "--params",
      '{"message":"x","fail":true}',
    );
    expect((await cli("run", "ok")).code).toBe(0);
    expect(receiver.requests).toHaveLength(0);

    const failed = await cli("run", "bad", "--json");
    expect(failed.code).toBe(1);
    const { runId } = JSON.parse(failed.stdout) as { runId: string };
    // Delivered (after one retry) by the time the command returned.
    expect(receiver.requests.map((r) => r.path)).toEqual(["/hook", "/hook"]);
    expect(JSON.parse(receiver.requests[1]!.body)).toMatchObject({
      event: "run.failed",
      job: "bad",
      run_id: runId,
      error: "echo failed: x",
      link: `https://tm.example/api/runs/${runId}`,
    });
  });
});
