import { createWriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { finished } from "node:stream/promises";
import type { FakeOptions, RunningFake } from "tidemark";
import { startMailgunFake } from "./mailgun-fake.ts";
import { sampleNewsletter } from "./sample-newsletter.ts";

/** File name of the sample newsletter the standalone fake writes into the data directory. */
export const SAMPLE_FILE = "email-analytics-sample.ndjson";

/** An instant as `schedule` takes it, to the second (`2026-01-31T12:00:00Z`). */
function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/**
 * `tidemark fake email-analytics`: a fake Mailgun Events API serving the campaign of a sample
 * newsletter (200 members, 3 emails over the last three days) whose import file it writes into
 * the data directory. Opens keep arriving for two days, some of them late, as on Mailgun. The
 * printed steps schedule a backfill of those three days: a first fetch reads only the last
 * 30 minutes (2 hours for late events), as Ghost's does, and would find almost nothing.
 */
export async function startEmailAnalyticsFake(options: FakeOptions): Promise<RunningFake> {
  const fake = await startMailgunFake({ port: options.port, host: options.host });
  const now = Date.now();
  const firstSentAt = new Date(now - 3 * 86_400_000);
  const sample = sampleNewsletter({
    members: 200,
    emails: 3,
    recipientsPerEmail: 200,
    firstSentAt,
    domain: fake.domain,
  });
  await mkdir(options.dataDir, { recursive: true });
  const file = path.join(options.dataDir, SAMPLE_FILE);
  const out = createWriteStream(file);
  for (const record of sample.records()) out.write(`${JSON.stringify(record)}\n`);
  out.end();
  await finished(out);
  const campaign = fake.generateCampaign({ emails: sample.campaign, seed: 4 });
  options.print(
    `fake Mailgun: ${campaign.events} events for domain ${fake.domain} (${Object.entries(
      campaign.byType,
    )
      .map(([t, n]) => `${t} ${n}`)
      .join(", ")}); sample newsletter: ${file}`,
  );
  return {
    env: fake.env,
    hints: [
      `tidemark email-analytics import ${file}   # the members, emails and recipients of the sample`,
      `tidemark email-analytics schedule --begin ${isoSeconds(firstSentAt.getTime())} --end ${isoSeconds(now + 1000)}   # backfill the campaign's three days (a first fetch reads only the last 30 min)`,
      "tidemark job add mailgun --type email-analytics.fetch && tidemark run mailgun",
      "tidemark email-analytics status",
    ],
    close: () => fake.close(),
  };
}
