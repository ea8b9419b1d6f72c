// Email-analytics benchmark (issue 12): 1,000,000 Mailgun events for 100,000 recipients (20
// emails × 5,000, from 20,000 members, each getting 5) served by the fake Mailgun in its own
// process; one `tidemark run` of email-analytics.fetch applies them all (its 10,000-event
// cycles restart at once) and aggregates — wall time, events/s and peak RSS of that process, on
// SQLite and Postgres. Peer in the same run: Ghost's published email-analytics packages reading
// the same fake, applying each event as Ghost's EmailEventStorage does, on the same schema.
// The fetch starts from Ghost job rows whose last event is just before the campaign (a site
// catching up), so every event is in the latest-fetch windows of both.
//
//   npm run bench:email-analytics [-- --events N] [--members N] [--emails N] [--per-email N]
//                   [--ghost-events N] [--sqlite-only] [--skip-ghost] [--from-source] [--keep]
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { finished } from "node:stream/promises";
import { sampleNewsletter } from "../src/pipelines/email-analytics/fake/sample-newsletter.ts";
import {
  countMismatches,
  type FakeInfo,
  freshTarget,
  runGhostPeer,
  seedJobRows,
  startFakeChild,
  withDb,
} from "./email-analytics-support.ts";
import { benchArgs } from "./support/argv.ts";
import { buildDist, type CliEntry, runCli, sourceEntry } from "./support/cli-run.ts";

const { flag, num } = benchArgs();
const EVENTS = num("--events", 1_000_000);
const EMAILS = num("--emails", 20);
const PER_EMAIL = num("--per-email", 5_000);
const MEMBERS = num("--members", 20_000);
/**
 * Events the Ghost peer applies (its maxEvents): it does one SELECT and one UPDATE per event at
 * a flat rate, so its events/s on the first 100,000 is its rate on a million (pass
 * --ghost-events 1000000 for the full run: about 25 minutes per dialect on 2 cores).
 */
const GHOST_EVENTS = num("--ghost-events", 100_000);
const PG_URL = process.env.TIDEMARK_BENCH_PG_URL ?? process.env.TIDEMARK_TEST_PG_URL;
const TARGET_EPS = 20_000;
const TARGET_RSS_MB = 300;

const work = mkdtempSync(path.join(tmpdir(), "tidemark-bench-email-analytics-"));
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const rate = (n: number, ms: number) => Math.round(n / (ms / 1000));
const fmt = (n: number) => n.toLocaleString("en");
const cleanups: Array<() => Promise<void>> = [];

// Campaign: 20 emails two hours apart starting 3 days ago; engagement within 24 h of delivery.
const firstSentAt = new Date(Date.now() - 72 * 3_600_000);
const since = new Date(firstSentAt.getTime() - 60_000);
const sampleOptions = {
  members: MEMBERS,
  emails: EMAILS,
  recipientsPerEmail: PER_EMAIL,
  spacingHours: 2,
  domain: "mg.example.com",
};

interface Outcome {
  label: string;
  events: number;
  wallMs: number;
  peakRssMb: number;
  mismatches: string[];
}

/** Writes the import file of the sample newsletter. */
async function writeSample(file: string): Promise<number> {
  const sample = sampleNewsletter({ ...sampleOptions, firstSentAt });
  const out = createWriteStream(file);
  let n = 0;
  for (const record of sample.records()) {
    if (!out.write(`${JSON.stringify(record)}\n`))
      await new Promise<void>((r) => out.once("drain", () => r()));
    n++;
  }
  out.end();
  await finished(out);
  return n;
}

/** Migrates and imports into a fresh database of `dialect`; returns it. */
async function prepared(
  entry: CliEntry,
  dialect: "sqlite" | "postgres",
  file: string,
  label: string,
) {
  const { target, url } = await freshTarget(dialect, work, PG_URL, cleanups);
  const env = {
    TIDEMARK_DATABASE_URL: url,
    TIDEMARK_DATA_DIR: path.join(work, "data"),
    TIDEMARK_LOG_LEVEL: "warn",
  };
  const imp = await runCli(entry, ["email-analytics", "import", file], env, work);
  if (imp.code !== 0)
    throw new Error(`import (${label}): exit ${imp.code}\n${imp.stdout}\n${imp.stderr}`);
  console.log(`  import (${label}): ${secs(imp.wallMs)}, peak RSS ${imp.peakRssMb.toFixed(0)} MB`);
  return { target, env };
}

/** One `tidemark run` of email-analytics.fetch over the whole campaign. */
async function tidemark(
  entry: CliEntry,
  dialect: "sqlite" | "postgres",
  file: string,
  fake: FakeInfo,
): Promise<Outcome> {
  const label = `Tidemark ${dialect}`;
  const { target, env } = await prepared(entry, dialect, file, label);
  await withDb(target, (db) => seedJobRows(db, since));
  const runEnv = { ...env, ...fake.env, TIDEMARK_MAILGUN_URL: fake.url };
  const add = await runCli(
    entry,
    ["job", "add", "bench", "--type", "email-analytics.fetch"],
    runEnv,
    work,
  );
  if (add.code !== 0) throw new Error(`job add: ${add.stderr}`);
  const run = await runCli(entry, ["run", "bench", "--json"], runEnv, work);
  if (run.code !== 0)
    throw new Error(
      `${label}: exit ${run.code}\n${run.stdout.slice(0, 3000)}\n${run.stderr.slice(-3000)}`,
    );
  const report = JSON.parse(run.stdout) as {
    summary?: { events?: number; cycles?: number; counts?: Record<string, number> };
  };
  const events = report.summary?.events ?? 0;
  const mismatches = await withDb(target, (db) => countMismatches(db, fake.summary));
  console.log(
    `  ${label}: ${fmt(events)} events in ${report.summary?.cycles ?? "?"} cycles, wall ${secs(run.wallMs)} → ${fmt(rate(events, run.wallMs))} events/s, peak RSS ${run.peakRssMb.toFixed(0)} MB; counts ${JSON.stringify(report.summary?.counts)}`,
  );
  return { label, events, wallMs: run.wallMs, peakRssMb: run.peakRssMb, mismatches };
}

/** Ghost's packages over the same fake and schema. */
async function ghost(
  entry: CliEntry,
  dialect: "sqlite" | "postgres",
  file: string,
  fake: FakeInfo,
): Promise<Outcome> {
  const label = `Ghost peer ${dialect}`;
  const { target } = await prepared(entry, dialect, file, label);
  // Ghost's provider starts 30 minutes before the last seen event.
  const peer = await runGhostPeer({
    database: target,
    fake,
    since: since.getTime() + 30 * 60_000,
    maxEvents: GHOST_EVENTS,
  });
  const { report } = peer;
  const mismatches = await withDb(target, (db) => countMismatches(db, fake.summary));
  console.log(
    `  ${label}: ${fmt(report.events)} events, wall ${secs(peer.wallMs)} (fetch+apply ${secs(report.fetchedMs)}, aggregate ${secs(report.totalMs - report.fetchedMs)}) → ${fmt(rate(report.events, report.totalMs))} events/s, peak RSS ${report.peakRssMb.toFixed(0)} MB`,
  );
  // Its own timing (fetch, apply, aggregate): the tsx start-up of the peer script is not
  // Ghost's. Counts are only comparable when it applied the whole campaign.
  const whole = report.events >= fake.summary.events - 1000;
  return {
    label,
    events: report.events,
    wallMs: report.totalMs,
    peakRssMb: report.peakRssMb,
    mismatches: whole ? mismatches : [],
  };
}

async function main(): Promise<void> {
  console.log(`Email-analytics benchmark in ${work}`);
  let t = performance.now();
  const entry = flag("--from-source") ? sourceEntry() : await buildDist(path.join(work, "pkg"));
  console.log(
    `CLI: ${entry.kind === "dist" ? `bundled build (${secs(performance.now() - t)} to build)` : "TypeScript sources via tsx"}`,
  );
  t = performance.now();
  const file = path.join(work, "newsletter.ndjson");
  const records = await writeSample(file);
  console.log(
    `Sample newsletter: ${fmt(MEMBERS)} members, ${EMAILS} emails × ${fmt(PER_EMAIL)} recipients (${fmt(records)} import records) in ${secs(performance.now() - t)}`,
  );
  const fake = await startFakeChild({
    sample: { ...sampleOptions, firstSentAt: firstSentAt.toISOString() },
    targetEvents: EVENTS,
    seed: 12,
  });
  cleanups.push(async () => {
    console.log(`  fake: ${await fake.stop()}`);
  });
  const s = fake.info.summary;
  console.log(
    `Fake Mailgun: ${fmt(s.events)} events (${Object.entries(s.byType)
      .map(([k, v]) => `${k} ${fmt(v)}`)
      .join(", ")}) generated in ${secs(fake.info.generateMs)}`,
  );

  const dialects: Array<"sqlite" | "postgres"> =
    flag("--sqlite-only") || !PG_URL ? ["sqlite"] : ["sqlite", "postgres"];
  if (!dialects.includes("postgres"))
    console.log("(Postgres skipped: set TIDEMARK_BENCH_PG_URL or TIDEMARK_TEST_PG_URL)");
  const results: Array<{ ours: Outcome; peer: Outcome | undefined }> = [];
  for (const dialect of dialects) {
    console.log(`\n${dialect}:`);
    const ours = await tidemark(entry, dialect, file, fake.info);
    const peer = flag("--skip-ghost") ? undefined : await ghost(entry, dialect, file, fake.info);
    results.push({ ours, peer });
  }

  console.log("\nSummary");
  let ok = true;
  for (const { ours, peer } of results) {
    const eps = rate(ours.events, ours.wallMs);
    const peerEps = peer ? rate(peer.events, peer.wallMs) : 0;
    const ratio = peer ? (eps / peerEps).toFixed(1) : "-";
    console.log(
      `  ${ours.label}: ${fmt(eps)} events/s, peak RSS ${ours.peakRssMb.toFixed(0)} MB; Ghost peer ${peer ? `${fmt(peerEps)} events/s over ${fmt(peer.events)} events, peak RSS ${peer.peakRssMb.toFixed(0)} MB` : "skipped"}; Tidemark is ${ratio}× as fast`,
    );
    for (const o of [ours, peer]) {
      if (o && o.mismatches.length > 0)
        console.log(
          `    ${o.label}: ${o.mismatches.length} email(s) with counts off, e.g. ${o.mismatches[0]}`,
        );
    }
    if (ours.label.endsWith("sqlite")) {
      const met = eps >= TARGET_EPS && ours.peakRssMb <= TARGET_RSS_MB && (!peer || eps > peerEps);
      ok &&= met;
      console.log(
        `    targets (SQLite: ≥ ${fmt(TARGET_EPS)} events/s, faster than Ghost, ≤ ${TARGET_RSS_MB} MB): ${met ? "met" : "MISSED"}`,
      );
    }
    ok &&= ours.mismatches.length === 0;
  }
  process.exitCode = ok ? 0 : 1;
}

try {
  await main();
} finally {
  for (const c of cleanups.reverse()) await c().catch((e: unknown) => console.error(e));
  if (flag("--keep")) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
