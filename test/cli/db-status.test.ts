import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { runCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";
import { testRegistry } from "../../src/testing/test-pipeline.ts";

it("db status of a SQLite file not created yet lists every migration pending, creating nothing", async () => {
  const cwd = testTempDir("tm-dbstatus-");
  const o = { cwd, registry: testRegistry() };
  const file = path.join(cwd, "data", "tidemark.db");
  let r = await runCli(["db", "status", "--json"], o);
  expect(r.code).toBe(0);
  expect(readdirSync(cwd)).toEqual([]);
  const before = JSON.parse(r.stdout) as { database: string; migrations: unknown[] };
  expect(before.database).toBe(file);
  r = await runCli(["db", "status"], o);
  expect(r.stdout).toMatch(new RegExp(`^Database: ${file} \\(does not exist yet\\)\\n`));
  expect(r.stdout).toMatch(/pending: run npx tidemark db migrate\n$/);
  expect(existsSync(file)).toBe(false);
  // The same migrations, in the same order, as the database lists once it exists.
  await runCli(["db", "migrate"], o);
  r = await runCli(["db", "status", "--json"], o);
  const after = JSON.parse(r.stdout) as { migrations: Array<{ scope: string; name: string }> };
  expect(before.migrations).toEqual(after.migrations.map(({ scope, name }) => ({ scope, name })));
});
