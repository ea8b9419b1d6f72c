// `tidemark email-analytics import <file>` from the command line: counts, idempotence, exit 2.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { Registry } from "../../src/engine/registry/registry.ts";
import { emailAnalyticsImportCommand } from "../../src/pipelines/email-analytics/commands.ts";
import { emailAnalyticsPipeline } from "../../src/pipelines/email-analytics/index.ts";
import { cliEnv } from "../../src/testing/cli-env.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";

const commands = emailAnalyticsPipeline.commands ?? [];
const registry = new Registry([
  {
    ...emailAnalyticsPipeline,
    commands: commands.some((c) => c.path.join(" ") === "email-analytics import")
      ? commands
      : [...commands, emailAnalyticsImportCommand],
  },
]);
const id = (c: string) => c.repeat(24);
const LINES = [
  {
    type: "email_recipient",
    id: id("r"),
    email_id: id("e"),
    member_id: id("a"),
    batch_id: id("b"),
  },
  { type: "member", id: id("a"), email: "ada@example.com" },
  { type: "email", id: id("e"), post_id: id("p"), track_opens: true },
  { type: "email_batch", id: id("b"), email_id: id("e"), provider_id: "m1@mg.example.com" },
];

describeEachDialect("email-analytics import (CLI)", (h) => {
  it("imports, then imports again without changing anything, and prints JSON on --json", async () => {
    const { cwd, env } = await cliEnv(h, "ea-import-cli-");
    writeFileSync(path.join(cwd, "sent.ndjson"), LINES.map((l) => JSON.stringify(l)).join("\n"));
    const first = await runCli(["email-analytics", "import", "sent.ndjson"], {
      cwd,
      env,
      registry,
    });
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("members: 1 imported");
    expect(first.stdout).toContain("email recipients: 1 imported");
    const again = await runCli(["email-analytics", "import", "sent.ndjson", "--json"], {
      cwd,
      env,
      registry,
    });
    expect(again.code).toBe(0);
    const json = JSON.parse(again.stdout) as {
      inserted: Record<string, number>;
      present: Record<string, number>;
    };
    expect(Object.values(json.inserted)).toEqual([0, 0, 0, 0, 0]);
    expect(json.present.email_recipients).toBe(1);
  });

  it("exits 2 with one line naming the file and line, and writes nothing", async () => {
    const { cwd, env } = await cliEnv(h, "ea-import-cli-");
    const bad = [...LINES, { type: "member", id: id("c"), email: "ada@example.com" }];
    writeFileSync(path.join(cwd, "bad.ndjson"), bad.map((l) => JSON.stringify(l)).join("\n"));
    const run = await runCli(["email-analytics", "import", "bad.ndjson"], { cwd, env, registry });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain(
      "bad.ndjson:5: member.email: ada@example.com is also given on line 2",
    );
    writeFileSync(path.join(cwd, "ok.ndjson"), JSON.stringify(LINES[1]));
    const ok = await runCli(["email-analytics", "import", "ok.ndjson"], { cwd, env, registry });
    expect(ok.stdout).toContain("members: 1 imported"); // nothing of bad.ndjson was written
    const missing = await runCli(["email-analytics", "import", "nope.csv", "--table", "members"], {
      cwd,
      env,
      registry,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope.csv: no such file");
  });
});
