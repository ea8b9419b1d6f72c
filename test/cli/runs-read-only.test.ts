import { expect, it, onTestFinished } from "vitest";
import { RunRepo } from "../../src/engine/runs/run-repo.ts";
import { openDatabase, typed } from "../../src/infra/db/open-database.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testRegistry } from "../../src/testing/test-pipeline.ts";
import { cliEnv } from "./cli-env.ts";

describeEachDialect("listing runs and jobs never writes", (h) => {
  it("a run whose process died shows abandoned in runs ls/show and job ls, its row unchanged", async () => {
    const env = await cliEnv(h);
    const o = { ...env, registry: testRegistry() };
    const cli = (...argv: string[]) => runCli(argv, o);
    expect(
      (await cli("job", "add", "stale", "--type", "test.echo", "--params", '{"message":"m"}')).code,
    ).toBe(0);

    const db = await openDatabase(env.target);
    onTestFinished(() => db.close());
    // A run recorded `running` whose lease is gone: its process died without settling it.
    await new RunRepo(db).insertStarted({
      runId: "stale_20260101T000000Z_abcdef",
      jobName: "stale",
      jobType: "test.echo",
      startedAt: "2026-01-01T00:00:00.000Z",
      dryRun: false,
      leaseKey: "job:stale",
      host: "gone-host",
      pid: 999999,
      params: {},
    });
    const rows = () => typed<{ tm_runs: object }>(db).selectFrom("tm_runs").selectAll().execute();
    const before = await rows();

    const listed = JSON.parse((await cli("runs", "ls", "--json")).stdout);
    expect(listed).toMatchObject([{ runId: "stale_20260101T000000Z_abcdef", status: "abandoned" }]);
    const filtered = JSON.parse(
      (await cli("runs", "ls", "--json", "--status", "abandoned")).stdout,
    );
    expect(filtered).toHaveLength(1);
    expect(JSON.parse((await cli("runs", "ls", "--json", "--status", "running")).stdout)).toEqual(
      [],
    );
    const shown = await cli("runs", "show", "stale_20260101T000000Z_abcdef");
    expect(shown.stdout).toContain("status:    abandoned");
    const jobs = JSON.parse((await cli("job", "ls", "--json")).stdout);
    expect(jobs).toMatchObject([{ name: "stale", lastRun: { status: "abandoned" } }]);

    expect(await rows()).toEqual(before);
    expect(before).toMatchObject([{ status: "running", finished_at: null }]);
  });
});
