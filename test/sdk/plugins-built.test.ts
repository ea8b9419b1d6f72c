// A TypeScript plugin under the built CLI (dist/, as installed): it gets the very classes the CLI
// checks against, so a UsageError it throws is a usage failure (exit 2), not an unknown error.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildInstalledLayout } from "../../scripts/build.ts";
import { spawnCli } from "../../src/testing/run-cli.ts";

const PLUGIN = `import { defineJobType, definePipeline, UsageError } from "tidemark";
import { z } from "zod";
export default definePipeline({
  name: "hello",
  description: "hello from outside",
  jobTypes: [
    defineJobType({
      name: "hello.say",
      description: "says hello, or refuses",
      params: z.object({ refuse: z.boolean().default(false) }),
      example: {},
      async run(ctx, p) {
        if (p.refuse) throw new UsageError("asked to refuse");
        const { contentHash } = await import("tidemark/kit");
        return { summary: { hash: contentHash({ a: 1 }).slice(0, 8), pipeline: ctx.pipeline } };
      },
    }),
  ],
});
`;

let pkg: string;
let bin: string;

beforeAll(async () => {
  pkg = mkdtempSync(path.join(tmpdir(), "tm-plugin-built-"));
  bin = await buildInstalledLayout(pkg);
  // Inside the installed package, so `tidemark` resolves to its own dist/ (as from node_modules).
  writeFileSync(path.join(pkg, "hello.ts"), PLUGIN);
  writeFileSync(path.join(pkg, "tidemark.yaml"), "plugins:\n  - ./hello.ts\n");
}, 120_000);

afterAll(() => rmSync(pkg, { recursive: true, force: true }));

it("runs a TypeScript plugin's job, and its UsageError exits 2", async () => {
  const env = { TIDEMARK_DATA_DIR: path.join(pkg, "data") };
  const types = await spawnCli(["job", "types"], { cwd: pkg, bin, env });
  expect(types.stdout).toContain("hello.say");
  const add = await spawnCli(["job", "add", "ok", "--type", "hello.say", "--params", "{}"], {
    cwd: pkg,
    bin,
    env,
  });
  expect(add.code, add.stderr).toBe(0);
  const ok = await spawnCli(["run", "ok"], { cwd: pkg, bin, env });
  expect(ok.code, ok.stderr).toBe(0);
  expect(ok.stdout).toContain("hash: 015abd7f");
  await spawnCli(["job", "add", "no", "--type", "hello.say", "--params", '{"refuse":true}'], {
    cwd: pkg,
    bin,
    env,
  });
  const refused = await spawnCli(["run", "no"], { cwd: pkg, bin, env });
  expect(refused.stdout + refused.stderr).toContain("asked to refuse");
  expect(refused.code).toBe(2);
});
