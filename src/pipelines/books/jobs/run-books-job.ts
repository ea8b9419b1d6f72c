import type { Transaction } from "kysely";
import {
  ConfigError,
  describeError,
  type JobContext,
  type JobResult,
  type Logger,
  rememberSecret,
} from "tidemark";
import { isoTimestamp, typed } from "tidemark/kit";
import { googleBooksFetcher } from "../client/google-books-client.ts";
import { normalizeVolume } from "../client/normalize-volume.ts";
import type { BooksRunParams } from "../params.ts";
import { BookRepo } from "../repos/book-repo.ts";
import { CollectCursorRepo } from "../repos/cursor-repo.ts";
import { MailHistoryRepo } from "../repos/mail-history-repo.ts";
import { apiKeyHash, QuotaRepo } from "../repos/quota-repo.ts";
import type { BooksSettings, SmtpSettings } from "../settings.ts";
import { CollectLog } from "../stages/collect/collect-log.ts";
import { type CollectorResult, collect } from "../stages/collect/collector.ts";
import { computeQuerySetHash, shortHash } from "../stages/collect/query-set-hash.ts";
import { type Digest, renderDigest } from "../stages/mail/digest.ts";
import { type SentMail, sendDigest } from "../stages/mail/send-digest.ts";
import { selectBooks } from "../stages/select/select-books.ts";
import type { BooksTables } from "../tables.ts";

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

/** Collect → Upsert (with the cursor, atomically) for one run; skipped when exhausted. */
async function collectAndUpsert(
  ctx: JobContext,
  params: BooksRunParams,
  settings: BooksSettings,
  apiKey: string | undefined,
  quota: QuotaRepo,
): Promise<{ summary: Record<string, unknown>; result?: CollectorResult; skipped: boolean }> {
  const db = typed<BooksTables>(ctx.db);
  const hash = computeQuerySetHash(params.queries);
  const log = new CollectLog(ctx.logger, ctx.jobName, hash);
  const cursor = await new CollectCursorRepo(db, ctx.clock).getCollectCursor(ctx.jobName, hash);
  const base = { query_set_hash: shortHash(hash), start_index: cursor?.start_index ?? 0 };
  if (cursor?.is_exhausted) {
    log.skipped();
    return { summary: { ...base, collect: "skipped: exhausted" }, skipped: true };
  }
  const maxPerRun = Math.min(params.max_per_run, ctx.limit ?? Number.POSITIVE_INFINITY);
  const result = await collect(
    {
      queries: params.queries,
      maxPerRun,
      cursor: cursor && { startIndex: cursor.start_index, isExhausted: false },
    },
    {
      fetchPage: googleBooksFetcher({
        settings,
        google: params.google_books,
        apiKey,
        logger: ctx.logger,
        onRequest: ctx.reportHttpRequest,
      }),
      quota,
      log,
      signal: ctx.signal,
    },
  );
  const found = result.items.map((i) => ({ book: normalizeVolume(i.volume), query: i.query }));
  const state = result.cursorState;
  // Books and cursor commit together, fenced by the run's lease: the cursor never moves past
  // books that were not saved, and a run that lost its lease moves nothing.
  const counts = await ctx.commit(async (trx: Transaction<BooksTables>) => {
    const c = await new BookRepo(trx).upsertForJob(found, {
      jobName: ctx.jobName,
      runId: ctx.runId,
      now: isoTimestamp(ctx.jobStartAt),
    });
    await new CollectCursorRepo(trx, ctx.clock).upsertCollectCursor(
      ctx.jobName,
      hash,
      state.startIndex,
      state.isExhausted,
    );
    return c;
  });
  return {
    summary: {
      ...base,
      next_start_index: state.startIndex,
      stop_reason: state.stopReason,
      exhausted: state.isExhausted,
      pages: result.pages,
      requests: result.requests,
      items: result.items.length,
      unique_books: counts.unique,
      new_books: counts.inserted,
      updated_books: counts.updated,
      new_for_job: counts.newForJob,
    },
    result,
    skipped: false,
  };
}

/**
 * Mails the digest and records what was sent. An SMTP failure is returned as the run's failure
 * message, naming the server, so the run still records what Collect and Upsert did.
 */
async function mailDigest(
  ctx: JobContext<BooksSettings>,
  smtp: SmtpSettings,
  mail: BooksRunParams["mail"],
  digest: Digest,
  books: ReadonlyArray<{ volumeId: string }>,
  summary: Record<string, unknown>,
): Promise<string | undefined> {
  let sent: SentMail;
  try {
    sent = await sendDigest(smtp, mail, digest);
  } catch (err) {
    const why = describeError(err);
    summary.mail = `not sent: ${why}`;
    // The books stay unmailed in the history, so the next run sends them again.
    return `mail not sent: SMTP server ${smtp.host}:${smtp.port}: ${why}`;
  }
  await new MailHistoryRepo(typed<BooksTables>(ctx.db)).record(
    ctx.jobName,
    books.map((b) => b.volumeId),
    { runId: ctx.runId, messageId: sent.messageId, sentAt: isoTimestamp(ctx.clock.now()) },
  );
  ctx.logger.info(
    { to: sent.accepted, subject: digest.subject, books: books.length, messageId: sent.messageId },
    "digest mailed",
  );
  summary.mail = `sent to ${sent.accepted.join(", ")}`;
  return undefined;
}

/** `books.run`: Collect → Upsert → Select → Mail (docs/pipelines/books.md). */
export async function runBooksJob(
  ctx: JobContext<BooksSettings>,
  params: BooksRunParams,
): Promise<JobResult> {
  const settings = ctx.settings;
  const apiKey = resolveApiKey(params, settings, ctx.logger, ctx.environ);
  const smtp = settings.smtp;
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
  const db = typed<BooksTables>(ctx.db);
  const quota = new QuotaRepo(db, ctx.clock, apiKeyHash(apiKey), settings.dailyRequestLimit);

  const collected = await collectAndUpsert(ctx, params, settings, apiKey, quota);
  const summary: Record<string, unknown> = {
    ...collected.summary,
    quota_used_today: await quota.usedToday(),
    quota_limit: quota.dailyLimit,
  };
  const stop = collected.result?.cursorState.stopReason;
  if (stop === "error" && ctx.signal.aborted) throw ctx.signal.reason;

  const books = await selectBooks(db, ctx.jobName, params.select);
  summary.selected = books.length;
  let mailFailure: string | undefined;
  if (books.length === 0) {
    summary.mail = "nothing to send";
  } else {
    const digest = renderDigest({ subject: params.mail.subject, jobName: ctx.jobName, books });
    if (ctx.dryRun) {
      ctx.logger.info({ subject: digest.subject, books: books.length }, "dry run: digest not sent");
      summary.mail = "dry run: not sent";
      summary.digest = digest.text;
    } else if (stop === "error") {
      // A failed run mails nothing: the books stay unmailed and go out with the next run.
      summary.mail = "not sent: collect stopped on an API error";
    } else if (smtp !== undefined) {
      mailFailure = await mailDigest(ctx, smtp, params.mail, digest, books, summary);
    }
  }

  if (stop === "error") {
    const why = describeError(collected.result?.error);
    return { status: "failed", summary, message: `collect stopped on an API error: ${why}` };
  }
  if (mailFailure !== undefined) return { status: "failed", summary, message: mailFailure };
  if (collected.skipped && books.length === 0) {
    return {
      status: "skipped",
      summary,
      message: `query set exhausted; collect again with: tidemark job cursor reset ${ctx.jobName} --yes`,
    };
  }
  return { summary };
}
