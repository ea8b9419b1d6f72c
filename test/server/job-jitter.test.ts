import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testRegistry } from "../../src/testing/test-pipeline.ts";
import { cliEnv } from "../cli/cli-env.ts";

describeEachDialect("job schedule jitter (CLI)", (h) => {
  it("is set on add, shown, exported, changed and removed on update; bad values are refused", async () => {
    const { cwd, env } = await cliEnv(h);
    const cli = (...args: string[]) => runCli(args, { cwd, env, registry: testRegistry() });
    const add = await cli(
      "job",
      "add",
      "spread",
      "--type",
      "test.echo",
      "--params",
      '{"message":"m"}',
      "--schedule",
      "*/5 * * * *",
      "--jitter",
      "240",
    );
    expect(add.code).toBe(0);
    expect((await cli("job", "show", "spread")).stdout).toContain(
      "jitter:    up to 240s after each occurrence",
    );
    expect(JSON.parse((await cli("job", "show", "spread", "--json")).stdout)).toMatchObject({
      jitter: 240,
    });
    expect((await cli("job", "export")).stdout).toContain("jitter: 240");

    await cli("job", "update", "spread", "--jitter", "30");
    expect(JSON.parse((await cli("job", "show", "spread", "--json")).stdout).jitter).toBe(30);
    await cli("job", "update", "spread", "--jitter", "0");
    const shown = JSON.parse((await cli("job", "show", "spread", "--json")).stdout);
    expect(shown.jitter).toBeUndefined();
    expect((await cli("job", "export")).stdout).not.toContain("jitter");

    for (const bad of ["-1", "86401", "1.5", "soon"]) {
      const r = await cli("job", "update", "spread", "--jitter", bad);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toContain("expected seconds from 0 to 86400");
    }
  });
});
