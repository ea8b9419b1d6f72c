// starter-kit.sync against the fake, through the CLI as a user runs it.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runCli, testTempDir } from "tidemark/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type StarterKitFake, startStarterKitFake } from "../fake/starter-kit-fake.ts";

const PLUGIN = fileURLToPath(new URL("../index.ts", import.meta.url));

let fake: StarterKitFake;
let cwd: string;

/** Runs `tidemark <argv>` in the test's folder; its config loads this pipeline as a plugin. */
async function tidemark(...argv: string[]) {
  return runCli(argv, { cwd, env: { TIDEMARK_STARTER_KIT_URL: fake.url } });
}

/** Runs the job; its exit code, its report's summary (`run --json`) and what it printed. */
async function runJob() {
  const res = await tidemark("run", "records", "--json");
  const report = JSON.parse(res.stdout || "{}") as { summary?: Record<string, unknown> };
  return { code: res.code, summary: report.summary ?? {}, output: res.stdout + res.stderr };
}

describe("starter-kit.sync", () => {
  beforeEach(async () => {
    fake = await startStarterKitFake({ count: 30 });
    cwd = testTempDir("starter-kit-");
    writeFileSync(
      path.join(cwd, "tidemark.yaml"),
      `plugins:\n  - ${JSON.stringify(PLUGIN)}\npipelines:\n  starter-kit:\n    page_size: 7\n    requests_per_second: 1000\n`,
    );
    expect((await tidemark("db", "migrate")).code).toBe(0);
    expect((await tidemark("job", "add", "records", "--type", "starter-kit.sync")).code).toBe(0);
  });

  afterEach(async () => {
    await fake.close();
  });

  it("takes every record in, then skips the unchanged ones and takes only the changed", async () => {
    const first = await runJob();
    expect(first.code, first.output).toBe(0);
    expect(first.summary).toMatchObject({ changed: 30, pages: 5, failure_count: 0 });

    fake.bumpViews(); // a field the pipeline does not keep: no change
    const second = await runJob();
    expect(second.code, second.output).toBe(0);
    expect(second.summary).toMatchObject({ changed: 0 });

    expect(fake.touch(3)).toHaveLength(3);
    const third = await runJob();
    expect(third.code, third.output).toBe(0);
    expect(third.summary).toMatchObject({ changed: 3 });
  });

  it("fails on a page of the wrong shape, naming the field, and keeps its cursor", async () => {
    const first = await runJob();
    expect(first.code, first.output).toBe(0);
    const cursor = first.summary.cursor_after;
    fake.touch(2);
    fake.fault = "wrong-shape";
    const failed = await runJob();
    expect(failed.code).toBe(1);
    expect(failed.output).toContain("records");
    expect(failed.output).toContain("/v1/records");

    fake.fault = "none";
    const after = await runJob();
    expect(after.code, after.output).toBe(0);
    expect(after.summary).toMatchObject({ cursor_before: cursor, changed: 2 });
  });

  it("fails with exit 2 naming the setting when no API URL is configured", async () => {
    const res = await runCli(["run", "records"], { cwd, env: {} });
    expect(res.code).toBe(2);
    expect(res.stdout + res.stderr).toContain("base_url");
  });
});
