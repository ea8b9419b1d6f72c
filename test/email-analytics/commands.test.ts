// `tidemark email-analytics status | schedule | stats` and a fetch run through the CLI.
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { eaCli, writeSample } from "./support/cli-harness.ts";

describeEachDialect("email-analytics commands", (h) => {
  it("status shows the four job rows, not running, no backfill; --json too", async () => {
    const { cli } = await eaCli(h);
    const text = await cli("email-analytics", "status");
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/fetch: not running; emails: 0/);
    for (const name of ["latest-opened", "latest-others", "missing", "scheduled"]) {
      expect(text.stdout).toMatch(new RegExp(`email-analytics-${name}\\s+never run`));
    }
    const json = await cli("email-analytics", "status", "--json");
    const status = JSON.parse(json.stdout);
    expect(status.running).toBe(false);
    expect(status.jobs.map((j: { name: string }) => j.name)).toEqual([
      "email-analytics-latest-opened",
      "email-analytics-latest-others",
      "email-analytics-missing",
      "email-analytics-scheduled",
    ]);
    expect(status.scheduled).toBeNull();
  });

  it("schedule --begin/--end and --cancel; bad input exits 2 and writes nothing", async () => {
    const { cli } = await eaCli(h);
    const bad = [
      ["--begin", "yesterday", "--end", "2026-01-02T00:00:00Z"],
      ["--begin", "2026-01-02T00:00:00Z", "--end", "2026-01-01T00:00:00Z"],
      ["--begin", "2026-01-01T00:00:00Z"],
      ["--cancel", "--begin", "2026-01-01T00:00:00Z"],
      // Impossible calendar dates and times are refused, not rolled over.
      ["--begin", "2026-02-30T00:00:00Z", "--end", "2026-11-24T00:00:00Z"],
      ["--begin", "2026-01-01T00:00:00Z", "--end", "2026-04-31"],
      ["--begin", "2026-01-01T24:30:00Z", "--end", "2026-11-24T00:00:00Z"],
    ];
    for (const args of bad) {
      const res = await cli("email-analytics", "schedule", ...args);
      expect(res.code, args.join(" ")).toBe(2);
      expect(res.stderr.trim().split("\n")).toHaveLength(1);
    }
    expect(
      (await cli("email-analytics", "schedule", "--begin", "yesterday", "--end", "x")).stderr,
    ).toMatch(/--begin/);
    expect(
      (
        await cli(
          "email-analytics",
          "schedule",
          "--begin",
          "2026-02-30T00:00:00Z",
          "--end",
          "2026-11-24T00:00:00Z",
        )
      ).stderr,
    ).toMatch(/--begin.*"2026-02-30T00:00:00Z"/);
    expect(
      JSON.parse((await cli("email-analytics", "status", "--json")).stdout).jobs[3].status,
    ).toBeNull();

    const ok = await cli(
      "email-analytics",
      "schedule",
      "--begin",
      "2026-01-01T00:00:00Z",
      "--end",
      "2026-01-02T00:00:00+00:00",
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/from 2026-01-01T00:00:00.000Z until 2026-01-02T00:00:00.000Z/);
    const status = JSON.parse((await cli("email-analytics", "status", "--json")).stdout);
    expect(status.scheduled).toEqual({
      begin: "2026-01-01T00:00:00.000Z",
      end: "2026-01-02T00:00:00.000Z",
    });
    expect(status.jobs[3].status).toBe("queued");
    expect((await cli("email-analytics", "schedule", "--cancel")).stdout).toMatch(/cancelled/);
    expect((await cli("email-analytics", "schedule", "--cancel")).stdout).toMatch(/No backfill/);
  });

  it("import, run the fetch, then stats and status show what Mailgun reported", async () => {
    const { cwd, cli, fake } = await eaCli(h);
    const { sample, file } = writeSample(cwd);
    expect((await cli("email-analytics", "import", file)).code).toBe(0);
    const campaign = fake.generateCampaign({
      emails: sample.campaign,
      engagementHours: 0.2,
      lateFraction: 0,
      rates: { noIds: 0 },
    });
    expect((await cli("job", "add", "mailgun", "--type", "email-analytics.fetch")).code).toBe(0);
    const run = await cli("run", "mailgun");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/events: \d+ in 1 cycle/);
    const id = sample.campaign[0]!.id;
    const stats = await cli("email-analytics", "stats", id, "--json");
    expect(stats.code, stats.stderr).toBe(0);
    const s = JSON.parse(stats.stdout);
    const expected = campaign.expectations.find((e) => e.emailId === id)!;
    expect([s.delivered_count, s.opened_count, s.failed_count]).toEqual([
      expected.delivered,
      expected.opened,
      expected.failed,
    ]);
    const text = await cli("email-analytics", "stats", id);
    expect(text.stdout).toMatch(new RegExp(`delivered\\s+${expected.delivered}`));
    const status = await cli("email-analytics", "status");
    expect(status.stdout).toMatch(/email-analytics-latest-opened\s+finished/);
  });

  it("stats of an unknown email exits 2 naming it", async () => {
    const { cli } = await eaCli(h);
    const res = await cli("email-analytics", "stats", "ffffffffffffffffffffffff");
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/unknown email: ffffffffffffffffffffffff/);
  });

  it("a Mailgun 401 fails the run (exit 1) without printing the key", async () => {
    const { cwd, cli, env } = await eaCli(h);
    const { file } = writeSample(cwd);
    await cli("email-analytics", "import", file);
    await cli("job", "add", "mailgun", "--type", "email-analytics.fetch");
    const { runCli } = await import("../../src/testing/run-cli.ts");
    const res = await runCli(["run", "mailgun"], {
      cwd,
      env: { ...env, MAILGUN_API_KEY: "key-wrong-0123456789abcdef" },
    });
    expect(res.code).toBe(1);
    expect(res.stdout + res.stderr).toMatch(/401/);
    expect(res.stdout + res.stderr).not.toMatch(/key-wrong-0123456789abcdef/);
  });
});
