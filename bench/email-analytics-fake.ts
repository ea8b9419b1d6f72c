// The fake Mailgun of bench/email-analytics.ts in its own process (so serving a million events
// uses the second core, and its memory is not counted as Tidemark's). Prints one JSON line with
// its URL and campaign summary, then serves until stdin closes.
//
//   tsx bench/email-analytics-fake.ts '<json: {sample, targetEvents, seed}>'
import { startMailgunFake } from "../src/pipelines/email-analytics/fake/mailgun-fake.ts";
import {
  type SampleNewsletterOptions,
  sampleNewsletter,
} from "../src/pipelines/email-analytics/fake/sample-newsletter.ts";
import { childInput } from "./support/argv.ts";

const input = childInput<{
  sample: Omit<SampleNewsletterOptions, "firstSentAt"> & { firstSentAt: string };
  targetEvents: number;
  seed: number;
}>();
// Links look like Mailgun's own, so Ghost's provider (which strips that host) can follow them.
const fake = await startMailgunFake({ linkBase: "https://api.mailgun.net" });
const sample = sampleNewsletter({
  ...input.sample,
  firstSentAt: new Date(input.sample.firstSentAt),
});
const t = performance.now();
const summary = fake.generateCampaign({
  emails: sample.campaign,
  seed: input.seed,
  targetEvents: input.targetEvents,
  lateFraction: 0,
  engagementHours: 24,
  clickShare: 0,
  rates: { clicked: 0 },
});
const generateMs = performance.now() - t;
process.stdout.write(
  `${JSON.stringify({ url: fake.url, apiKey: fake.apiKey, domain: fake.domain, env: fake.env, generateMs, summary })}\n`,
);
process.stdin.resume();
process.stdin.on("end", async () => {
  await fake.close();
  process.stderr.write(
    `@@fake ${fake.stats.total} requests, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB\n`,
  );
  process.exit(0);
});
