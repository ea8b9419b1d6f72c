import { writeFileSync } from "node:fs";
import path from "node:path";
import { onTestFinished } from "vitest";
import type { DatabaseTarget } from "../../../src/infra/config/load-config.ts";
import {
  type MailgunFake,
  startMailgunFake,
} from "../../../src/pipelines/email-analytics/fake/mailgun-fake.ts";
import {
  type SampleNewsletter,
  sampleNewsletter,
} from "../../../src/pipelines/email-analytics/fake/sample-newsletter.ts";
import { cliEnv } from "../../../src/testing/cli-env.ts";
import type { DialectHarness } from "../../../src/testing/dialects.ts";
import { runCli } from "../../../src/testing/run-cli.ts";

/** A CLI working directory and environment pointing at a fresh database and a fake Mailgun. */
export async function eaCli(h: DialectHarness): Promise<{
  cwd: string;
  env: NodeJS.ProcessEnv;
  fake: MailgunFake;
  target: DatabaseTarget;
  cli(...argv: string[]): ReturnType<typeof runCli>;
}> {
  const { cwd, env: dbEnv, target } = await cliEnv(h, "tm-ea-cli-");
  const fake = await startMailgunFake();
  onTestFinished(() => fake.close());
  const env = { ...dbEnv, ...fake.env };
  return { cwd, env, fake, target, cli: (...argv) => runCli(argv, { cwd, env }) };
}

/** Writes a sample newsletter's import file into `cwd`; returns it with its path. */
export function writeSample(
  cwd: string,
  options: { members?: number; emails?: number; sentMinutesAgo?: number } = {},
): { sample: SampleNewsletter; file: string } {
  const members = options.members ?? 20;
  const sample = sampleNewsletter({
    members,
    emails: options.emails ?? 2,
    recipientsPerEmail: members,
    firstSentAt: new Date(Date.now() - (options.sentMinutesAgo ?? 40) * 60_000),
    spacingHours: 0.1,
  });
  const file = path.join(cwd, "newsletter.ndjson");
  writeFileSync(file, [...sample.records()].map((r) => `${JSON.stringify(r)}\n`).join(""));
  return { sample, file };
}
