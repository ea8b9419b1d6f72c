import {
  ConfigError,
  describeError,
  type JobContext,
  type JobResult,
  type Logger,
  rememberSecret,
} from "tidemark";
import { typed } from "tidemark/kit";
import type { BooksRunParams } from "../params.ts";
import { CollectCursorRepo } from "../repos/cursor-repo.ts";
import { type DigestBook, selectBooks } from "../repos/digest-candidates.ts";
import { MailHistoryRepo } from "../repos/mail-history-repo.ts";
import { apiKeyHash, QuotaRepo } from "../repos/quota-repo.ts";
import type { BooksSettings, SmtpSettings } from "../settings.ts";
import { type CollectOutcome, collectAndUpsert } from "../stages/collect/collect-stage.ts";
import { renderDigest } from "../stages/mail/digest.ts";
import { mailDigest } from "../stages/mail/mail-digest.ts";
import type { BooksTables } from "../tables.ts";

/**
 * `books.run`: Collect → Upsert → Select → Mail (docs/pipelines/books.md). The run's
 * repositories are built here once and handed to the stages.
 */
export async function runBooksJob(
  ctx: JobContext<BooksSettings>,
  params: BooksRunParams,
): Promise<JobResult> {
  const apiKey = resolveApiKey(params, ctx.settings, ctx.logger, ctx.environ);
  const smtp = checkRunnable(ctx, params);
  const db = typed<BooksTables>(ctx.db);
  const cursors = new CollectCursorRepo(db, ctx.clock);
  const quota = new QuotaRepo(db, ctx.clock, apiKeyHash(apiKey), ctx.settings.dailyRequestLimit);
  const mailHistory = new MailHistoryRepo(db);

  const collected = await collectAndUpsert(ctx, params, apiKey, { cursors, quota });
  const summary: Record<string, unknown> = {
    ...collected.summary,
    quota_used_today: await quota.usedToday(),
    quota_limit: quota.dailyLimit,
  };
  const stop = collected.result?.cursorState.stopReason;
  if (stop === "error" && ctx.signal.aborted) throw ctx.signal.reason;

  const books = await selectBooks(db, ctx.jobName, params.select);
  summary.selected = books.length;
  const mailFailure = await mailStep(ctx, params, { smtp, books, stop, mailHistory }, summary);
  return runOutcome(ctx.jobName, collected, { books, mailFailure, summary });
}

/**
 * Refuses a run that cannot work before any request: no SMTP for a real run, or a `--limit`
 * below the number of queries. Returns the SMTP settings (undefined on a dry run without them).
 */
function checkRunnable(
  ctx: JobContext<BooksSettings>,
  params: BooksRunParams,
): SmtpSettings | undefined {
  const smtp = ctx.settings.smtp;
  if (!ctx.dryRun && smtp === undefined) {
    throw new ConfigError(
      "SMTP is not configured: set pipelines.books.smtp.host in tidemark.yaml or TIDEMARK_SMTP_HOST (or run with --dry-run)",
    );
  }
  const queries = params.queries.length;
  if (ctx.limit !== undefined && ctx.limit < queries) {
    // Collect takes at least one item per query; a smaller cap would silently collect nothing.
    throw new ConfigError(
      `--limit ${ctx.limit} is below the job's ${queries} queries: Collect needs at least one item per query (give --limit ${queries} or more)`,
    );
  }
  return smtp;
}

/** Mail: renders the selected books and sends them, unless dry run or Collect failed. */
async function mailStep(
  ctx: JobContext<BooksSettings>,
  params: BooksRunParams,
  run: {
    smtp: SmtpSettings | undefined;
    books: DigestBook[];
    stop: string | null | undefined;
    mailHistory: MailHistoryRepo;
  },
  summary: Record<string, unknown>,
): Promise<string | undefined> {
  const { books, smtp } = run;
  if (books.length === 0) {
    summary.mail = "nothing to send";
    return undefined;
  }
  const digest = renderDigest({ subject: params.mail.subject, jobName: ctx.jobName, books });
  if (ctx.dryRun) {
    ctx.logger.info({ subject: digest.subject, books: books.length }, "dry run: digest not sent");
    summary.mail = "dry run: not sent";
    summary.digest = digest.text;
  } else if (run.stop === "error") {
    // A failed run mails nothing: the books stay unmailed and go out with the next run.
    summary.mail = "not sent: collect stopped on an API error";
  } else if (smtp !== undefined) {
    const mail = { smtp, params: params.mail, digest };
    return mailDigest(ctx, run.mailHistory, mail, books, summary);
  }
  return undefined;
}

/** The run's status: failed on an API error or an SMTP failure, skipped when exhausted and idle. */
function runOutcome(
  jobName: string,
  collected: CollectOutcome,
  run: { books: DigestBook[]; mailFailure: string | undefined; summary: Record<string, unknown> },
): JobResult {
  const { summary, mailFailure } = run;
  if (collected.result?.cursorState.stopReason === "error") {
    const why = describeError(collected.result.error);
    return { status: "failed", summary, message: `collect stopped on an API error: ${why}` };
  }
  if (mailFailure !== undefined) return { status: "failed", summary, message: mailFailure };
  if (collected.skipped && run.books.length === 0) {
    return {
      status: "skipped",
      summary,
      message: `query set exhausted; collect again with: tidemark job cursor reset ${jobName} --yes`,
    };
  }
  return { summary };
}

/**
 * The API key named by `api_key_env`, read at run time (never stored). Unset against the real
 * Google endpoint = a configuration error naming the variable; against any other base URL (the
 * fake, a local proxy) the run goes on keyless with a warning, so demos and tests need no key.
 */
export function resolveApiKey(
  params: BooksRunParams,
  settings: BooksSettings,
  logger: Logger,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const name = params.api_key_env;
  if (name === undefined) return undefined;
  const value = env[name]?.trim();
  rememberSecret(value);
  if (value) return value;
  if (settings.isGoogle) {
    throw new ConfigError(
      `environment variable ${name} (named by params.api_key_env) is not set: export the Google Books API key in it`,
    );
  }
  logger.warn(
    { api_key_env: name, base_url: settings.baseUrl },
    `${name} is not set; calling ${settings.baseUrl} without an API key (not the Google endpoint)`,
  );
  return undefined;
}
