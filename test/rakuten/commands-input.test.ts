// Bad input to `tidemark rakuten …`: one line naming what is wrong, exit 2, nothing written.
import { expect, it } from "vitest";
import { Registry } from "../../src/engine/registry/registry.ts";
import { rakutenPipeline } from "../../src/pipelines/rakuten/index.ts";
import { cliEnv } from "../../src/testing/cli-env.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { TEST_ENVIRON } from "./support/rakuten-harness.ts";

const registry = new Registry([rakutenPipeline]);

describeEachDialect("tidemark rakuten: bad input", (h) => {
  it("raw: a source id no raw key can hold is a one-line usage error naming it (exit 2)", async () => {
    const { cwd, env } = await cliEnv(h, "tm-rakuten-input-");
    const cli = (...argv: string[]) =>
      runCli(argv, { cwd, env: { ...env, ...TEST_ENVIRON }, registry });
    for (const id of ["../../etc", "shop/1", "..", "a\\b", "a\u0001b"]) {
      const res = await cli("rakuten", "raw", "item", id);
      expect(res.code, `${id}: ${res.stderr}`).toBe(2);
      const lines = res.stderr.trim().split("\n");
      expect(lines, res.stderr).toHaveLength(1);
      expect(lines[0]).toContain(`source_id ${JSON.stringify(id)}`);
      expect(lines[0]).not.toContain("unexpected error");
    }
  });

  it("reapply --limit takes digits only, as run --limit does: 0x2, 1e1, 1.0, ' 3', 0 are refused", async () => {
    const { cwd, env } = await cliEnv(h, "tm-rakuten-input-");
    const cli = (...argv: string[]) =>
      runCli(argv, { cwd, env: { ...env, ...TEST_ENVIRON }, registry });
    for (const limit of ["0x2", "1e1", "1.0", " 3", "0", "-1", "abc"]) {
      const res = await cli("rakuten", "reapply", "item", "--limit", limit, "--dry-run");
      expect(res.code, `${limit}: ${res.stdout}${res.stderr}`).toBe(2);
      expect(res.stderr.trim()).toBe(
        `tidemark: --limit must be a positive integer, not ${JSON.stringify(limit)}`,
      );
      expect(res.stdout).toBe("");
    }
    const ok = await cli("rakuten", "reapply", "item", "--limit", "3", "--dry-run");
    expect(ok.code, ok.stderr).toBe(0);
  });
});
