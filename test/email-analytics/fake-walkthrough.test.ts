// `tidemark fake email-analytics` prints steps to follow; following them shows the campaign.
import { expect, it, onTestFinished } from "vitest";
import { openDatabase, typed } from "../../src/infra/db/open-database.ts";
import { startEmailAnalyticsFake } from "../../src/pipelines/email-analytics/fake/start-fake.ts";
import type { EmailAnalyticsTables } from "../../src/pipelines/email-analytics/tables.ts";
import { cliEnv } from "../../src/testing/cli-env.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";

/** The `tidemark …` commands of the printed hints, without comments, split on `&&`. */
function commandsOf(hints: readonly string[]): string[][] {
  return hints
    .map((hint) => hint.replace(/#.*$/, "").trim())
    .flatMap((hint) => hint.split("&&").map((c) => c.trim()))
    .filter((c) => c.startsWith("tidemark "))
    .map((c) => c.split(/\s+/).slice(1));
}

describeEachDialect("email-analytics fake walkthrough", (h) => {
  it("the printed steps import the sample and fetch its campaign's events", async () => {
    const { cwd, env, target } = await cliEnv(h, "tm-ea-walk-");
    const running = await startEmailAnalyticsFake({
      port: 0,
      host: "127.0.0.1",
      dataDir: `${cwd}/fake`,
      print: () => {},
    });
    onTestFinished(() => running.close());
    const steps = commandsOf(running.hints);
    expect(steps.map((s) => s.slice(0, 2).join(" "))).toContain("run mailgun");
    for (const argv of steps) {
      const res = await runCli(argv, { cwd, env: { ...env, ...running.env } });
      expect(res.code, `${argv.join(" ")}: ${res.stderr}`).toBe(0);
    }
    const db = await openDatabase(target);
    try {
      const emails = await typed<EmailAnalyticsTables>(db)
        .selectFrom("emails")
        .select(["delivered_count", "opened_count"])
        .execute();
      expect(emails).toHaveLength(3);
      // 200 recipients each: most delivered, some opened, all within the last three days.
      for (const e of emails) {
        expect(e.delivered_count).toBeGreaterThan(150);
        expect(e.opened_count).toBeGreaterThan(0);
      }
    } finally {
      await db.close();
    }
  }, 60_000);
});
