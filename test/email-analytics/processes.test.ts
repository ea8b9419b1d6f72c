// Real processes: a fetch killed mid-cycle and rerun loses nothing and inflates nothing; two
// fetches started at once, one runs and the other exits 3 ("already running").
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { openDatabase, typed } from "../../src/infra/db/open-database.ts";
import type { EmailAnalyticsTables } from "../../src/pipelines/email-analytics/tables.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { spawnCli } from "../../src/testing/run-cli.ts";
import { eaCli, writeSample } from "./support/cli-harness.ts";

const BIN = fileURLToPath(new URL("../../bin/tidemark.js", import.meta.url));

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describeEachDialect("email-analytics fetch processes", (h) => {
  it("a fetch killed mid-cycle, then rerun: every event applied once, counters exact", async () => {
    const { cwd, env, cli, fake, target } = await eaCli(h);
    const { sample, file } = writeSample(cwd, { members: 300, emails: 2 });
    expect((await cli("email-analytics", "import", file)).code).toBe(0);
    const campaign = fake.generateCampaign({
      emails: sample.campaign,
      engagementHours: 0.2,
      lateFraction: 0,
      targetEvents: 25_000,
      rates: { noIds: 0 },
    });
    await cli("job", "add", "mailgun", "--type", "email-analytics.fetch");
    fake.faults.set({ delayMs: 60 });
    const child = spawn(process.execPath, [BIN, "run", "mailgun"], {
      cwd,
      env: { ...process.env, ...env, TIDEMARK_FROM_SOURCE: "1", TIDEMARK_LOG_LEVEL: "warn" },
      stdio: "ignore",
    });
    const exited = new Promise((r) => child.on("exit", r));
    // Past the first commits (3,000 events: 10 pages each), well before the end.
    await waitFor(() => fake.requests.length >= 45, 90_000);
    child.kill("SIGKILL");
    await exited;
    fake.faults.set({ delayMs: 0 });
    // Killed mid-cycle: the first batches are applied, the rest is not.
    const partial = await openDatabase(target);
    try {
      const k = typed<EmailAnalyticsTables>(partial);
      const opened = await k
        .selectFrom("email_recipients")
        .select((eb) => eb.fn.count<number | string>("opened_at").as("n"))
        .executeTakeFirstOrThrow();
      expect(Number(opened.n)).toBeGreaterThan(0);
      const delivered = await k
        .selectFrom("email_recipients")
        .select((eb) => eb.fn.count<number | string>("delivered_at").as("n"))
        .executeTakeFirstOrThrow();
      const expectedDelivered = campaign.expectations.reduce((a, e) => a + e.delivered, 0);
      expect(Number(delivered.n)).toBeLessThan(expectedDelivered);
    } finally {
      await partial.close();
    }
    const rerun = await cli("run", "mailgun");
    expect(rerun.code, rerun.stderr).toBe(0);

    const db = await openDatabase(target);
    try {
      const k = typed<EmailAnalyticsTables>(db);
      for (const expected of campaign.expectations) {
        const email = await k
          .selectFrom("emails")
          .selectAll()
          .where("id", "=", expected.emailId)
          .executeTakeFirstOrThrow();
        expect([email.delivered_count, email.opened_count, email.failed_count]).toEqual([
          expected.delivered,
          expected.opened,
          expected.failed,
        ]);
      }
      const members = await k
        .selectFrom("members as m")
        .select((eb) => [
          "m.email_opened_count",
          eb
            .selectFrom("email_recipients as r")
            .whereRef("r.member_id", "=", "m.id")
            .where("r.opened_at", "is not", null)
            .select((e) => e.fn.countAll<number | string>().as("n"))
            .as("opened"),
        ])
        .execute();
      for (const m of members) expect(m.email_opened_count).toBe(Number(m.opened));
    } finally {
      await db.close();
    }
  }, 180_000);

  it("two fetches started at once: one runs, the other exits 3 (already running)", async () => {
    const { cwd, env, cli, fake } = await eaCli(h);
    const { sample, file } = writeSample(cwd, { members: 100, emails: 1 });
    await cli("email-analytics", "import", file);
    fake.generateCampaign({
      emails: sample.campaign,
      engagementHours: 0.2,
      lateFraction: 0,
      targetEvents: 3_000,
    });
    await cli("job", "add", "fetch-a", "--type", "email-analytics.fetch");
    await cli("job", "add", "fetch-b", "--type", "email-analytics.fetch");
    fake.faults.set({ delayMs: 400 });
    const [a, b] = await Promise.all([
      spawnCli(["run", "fetch-a"], { cwd, env, timeoutMs: 120_000 }),
      spawnCli(["run", "fetch-b"], { cwd, env, timeoutMs: 120_000 }),
    ]);
    expect([a.code, b.code].sort()).toEqual([0, 3]);
    expect((a.code === 3 ? a : b).stderr).toMatch(/already running/);
  }, 180_000);
});
