// registry-feed.follow against the fake registry, through the CLI as a user runs it.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runCli, testTempDir } from "tidemark/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type RegistryFake, startRegistryFake } from "../fake/registry-fake.ts";

const PLUGIN = fileURLToPath(new URL("../index.ts", import.meta.url));

let fake: RegistryFake;
let cwd: string;

async function tidemark(...argv: string[]) {
  return runCli(argv, { cwd, env: { TIDEMARK_REGISTRY_FEED_URL: fake.url } });
}

/** Runs the job: its exit code, its report's summary (`run --json`) and what it printed. */
async function follow() {
  const res = await tidemark("run", "registry", "--json");
  const report = JSON.parse(res.stdout || "{}") as { summary?: Record<string, unknown> };
  return { code: res.code, summary: report.summary ?? {}, output: res.stdout + res.stderr };
}

describe("registry-feed.follow", () => {
  beforeEach(async () => {
    fake = await startRegistryFake({ count: 40 });
    cwd = testTempDir("registry-feed-");
    writeFileSync(
      path.join(cwd, "tidemark.yaml"),
      `plugins:\n  - ${JSON.stringify(PLUGIN)}\npipelines:\n  registry-feed:\n    batch: 25\n    requests_per_second: 1000\n`,
    );
    expect((await tidemark("db", "migrate")).code).toBe(0);
    expect((await tidemark("job", "add", "registry", "--type", "registry-feed.follow")).code).toBe(
      0,
    );
  });

  afterEach(async () => {
    await fake.close();
  });

  it("takes in every package, then only the ones the feed says changed", async () => {
    const first = await follow();
    expect(first.code, first.output).toBe(0);
    const seq = fake.catalogue.lastSeq;
    expect(first.summary).toMatchObject({ changed: 40, cursor_before: 0, cursor_after: seq });

    const idle = await follow();
    expect(idle.summary).toMatchObject({ total_targets: 0, cursor_after: seq });

    fake.catalogue.publish("left-pad", "2.0.0");
    fake.catalogue.publish("tiny-json", "1.0.0");
    fake.catalogue.unpublish("quick-pad");
    const third = await follow();
    expect(third.code, third.output).toBe(0);
    expect(third.summary).toMatchObject({ changed: 2, removed: 1, cursor_after: seq + 3 });
  });

  it("skips a package whose document did not change although the feed names it", async () => {
    await follow();
    fake.catalogue.changes.push({ seq: fake.catalogue.lastSeq + 1, id: "left-pad" });
    const again = await follow();
    expect(again.summary).toMatchObject({ total_targets: 1, unchanged_skipped: 1, changed: 0 });
  });

  it("fails on a feed page of the wrong shape, naming the field, and keeps its cursor", async () => {
    await follow();
    const seq = fake.catalogue.lastSeq;
    fake.catalogue.publish("left-pad", "3.0.0");
    fake.fault = "wrong-shape";
    const failed = await follow();
    expect(failed.code).toBe(1);
    expect(failed.output).toContain("results");
    expect(failed.output).toContain("/_changes");
    fake.fault = "none";
    const after = await follow();
    expect(after.summary).toMatchObject({ cursor_before: seq, changed: 1 });
  });

  it("does not take a proxy's 404 page for a removed package: the run fails, the cursor stays", async () => {
    await follow();
    const seq = fake.catalogue.lastSeq;
    fake.catalogue.publish("left-pad", "4.0.0");
    fake.fault = "proxy-404";
    const failed = await follow();
    expect(failed.code).toBe(1);
    expect(failed.summary).toMatchObject({ failure_count: 1, cursor_after: seq });
  });
});
