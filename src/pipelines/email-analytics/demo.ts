import { createWriteStream } from "node:fs";
import path from "node:path";
import { finished } from "node:stream/promises";
import type { DemoContext, DemoRunResult } from "tidemark";
import { type MailgunFake, startMailgunFake } from "./fake/mailgun-fake.ts";
import { sampleNewsletter } from "./fake/sample-newsletter.ts";
import { emailAnalyticsStatus, statusLines } from "./monitoring/status.ts";
import { emailStats, emailStatsLines, topMembers } from "./repos/email-stats.ts";
import {
  type EmailAnalyticsSettings,
  emailAnalyticsSettingsSchema,
  MAILGUN_API_KEY_ENV,
} from "./settings.ts";
import { importFile } from "./stages/import/run-import.ts";

const JOB = "mailgun-analytics";
const MINUTE = 60_000;

/** One run's line: status, events by type, cycles and throughput. */
function printRun(label: string, r: DemoRunResult, print: (line: string) => void): void {
  const s = r.summary as {
    events?: number;
    cycles?: number;
    counts?: Record<string, number>;
    events_per_second?: number;
  };
  const counts = Object.entries(s.counts ?? {})
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  print(
    `${label}: ${r.status}, ${s.events ?? 0} events in ${s.cycles ?? 0} cycle(s)${counts ? ` (${counts})` : ""}`,
  );
  if (r.error) print(`  error: ${r.error}`);
}

/** The demo's settings: pointing at the fake, whatever the shell exports (`use_env: false`). */
function sectionFor(fake: MailgunFake): Record<string, unknown> {
  return { base_url: fake.url, domain: fake.domain, use_env: false };
}

type Sample = ReturnType<typeof sampleNewsletter>;

/** Writes a sample newsletter (100 members, 6 emails) to the demo's directory and imports it. */
async function importSample(ctx: DemoContext, fake: MailgunFake, now: number): Promise<Sample> {
  const sample = sampleNewsletter({
    members: 100,
    emails: 6,
    recipientsPerEmail: 100,
    firstSentAt: new Date(now - 60 * MINUTE),
    spacingHours: 8 / 60,
    domain: fake.domain,
  });
  const file = path.join(ctx.dataDir, "newsletter.ndjson");
  const out = createWriteStream(file);
  for (const record of sample.records()) out.write(`${JSON.stringify(record)}\n`);
  out.end();
  await finished(out);
  const imported = await importFile(ctx.services.db, ctx.services.clock, file);
  const rows = Object.entries(imported.inserted)
    .filter(([, n]) => n > 0)
    .map(([t, n]) => `${t} ${n}`)
    .join(", ");
  ctx.print(`Imported ${file}: ${rows}`);
  ctx.print(`Fake Mailgun Events API: ${fake.url}/v3/${fake.domain}/events`);
  return sample;
}

/** Runs the fetch three times while the campaign's events arrive at the fake. */
async function fetchWhileEventsArrive(
  ctx: DemoContext,
  fake: MailgunFake,
  sample: Sample,
  now: number,
): Promise<void> {
  const { print } = ctx;
  // The first four emails' events are in Mailgun now; the last two's arrive between runs.
  const early = fake.generateCampaign({
    emails: sample.campaign.slice(0, 4),
    engagementHours: 0.25,
    lateFraction: 0,
    seed: 7,
  });
  print(`Mailgun holds ${early.events} events of the first four emails`);
  const settings = sectionFor(fake);
  // The fake's key, for these runs alone: the fetch job reads MAILGUN_API_KEY.
  const environ = { [MAILGUN_API_KEY_ENV]: fake.apiKey };
  const run = () =>
    ctx.runJob({ job: JOB, type: "email-analytics.fetch", params: {}, settings, environ });
  printRun("Run 1", await run(), print);

  const late = fake.generateCampaign({
    emails: sample.campaign
      .slice(4)
      .map((e, i) => ({ ...e, sentAt: new Date(now - (12 - 2 * i) * MINUTE) })),
    engagementHours: 0.15,
    lateFraction: 0,
    seed: 8,
  });
  print(`${late.events} more events arrive (the last two emails)`);
  printRun("Run 2", await run(), print);
  printRun("Run 3", await run(), print);
}

/** The status as the demo's runs saw it, two emails' stats and the most engaged members. */
async function printResults(ctx: DemoContext, fake: MailgunFake, sample: Sample): Promise<void> {
  const { print, services } = ctx;
  // The threshold of the demo's own settings (the section its runs were given).
  const demoSettings = emailAnalyticsSettingsSchema.parse(sectionFor(fake));
  const settings: Pick<EmailAnalyticsSettings, "openedLagWarningMinutes"> = {
    openedLagWarningMinutes: demoSettings.opened_lag_warning_minutes,
  };
  print("");
  for (const line of statusLines(await emailAnalyticsStatus({ ...services, settings }))) {
    print(line);
  }
  for (const email of [sample.campaign[0], sample.campaign.at(-1)]) {
    if (!email) continue;
    print("");
    for (const line of emailStatsLines(await emailStats(services, email.id))) print(line);
  }
  print("");
  print("Most engaged members (email_count, email_opened_count, email_open_rate):");
  for (const m of await topMembers(services, 5)) {
    print(
      `  ${m.email.padEnd(36)} ${m.email_count}  ${m.email_opened_count}  ${m.email_open_rate ?? "-"}`,
    );
  }
}

/**
 * `tidemark demo` for email-analytics: imports a sample newsletter (100 members, 6 emails),
 * starts a fake Mailgun, and runs the fetch three times while the campaign's events arrive,
 * then prints the emails' and the most engaged members' statistics.
 */
export async function runEmailAnalyticsDemo(ctx: DemoContext): Promise<void> {
  const fake = await startMailgunFake();
  try {
    const now = ctx.services.clock.now().getTime();
    const sample = await importSample(ctx, fake, now);
    await fetchWhileEventsArrive(ctx, fake, sample, now);
    await printResults(ctx, fake, sample);
    ctx.print("");
    ctx.print(`Status:      ${ctx.command("email-analytics status")}`);
    ctx.print(
      `Email stats: ${ctx.command(`email-analytics stats ${sample.campaign[0]?.id ?? ""}`)}`,
    );
    ctx.print(`Its runs:    ${ctx.command(`runs ls --job ${JOB}`)}`);
  } finally {
    await fake.close();
  }
}
