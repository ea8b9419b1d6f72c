import { Writable } from "node:stream";
import pino from "pino";
import { onTestFinished } from "vitest";
import type { Clock } from "../../../src/engine/clock/clock.ts";
import { type FakeServer, startFakeServer } from "../../../src/engine/fakes/fake-server.ts";
import { JobService } from "../../../src/engine/jobs/job-service.ts";
import { Registry } from "../../../src/engine/registry/registry.ts";
import type { Runtime } from "../../../src/engine/runtime/runtime.ts";
import { typed } from "../../../src/infra/db/open-database.ts";
import {
  GoogleBooksFake,
  type GoogleBooksFakeOptions,
} from "../../../src/pipelines/books/fake/google-books-fake.ts";
import {
  type SmtpCapture,
  startSmtpCapture,
} from "../../../src/pipelines/books/fake/smtp-capture.ts";
import { booksPipeline } from "../../../src/pipelines/books/index.ts";
import { CollectCursorRepo } from "../../../src/pipelines/books/repos/cursor-repo.ts";
import type { BooksTables } from "../../../src/pipelines/books/tables.ts";
import type { DialectHarness } from "../../../src/testing/dialects.ts";
import { openTestRuntime } from "../../../src/testing/test-runtime.ts";

/** One parsed pino line. */
export interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

/** A pino logger whose JSON lines land in `lines`. */
export function captureLogger(): { logger: pino.Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of chunk.toString().split("\n")) if (l.trim()) lines.push(JSON.parse(l));
      cb();
    },
  });
  const logger = pino(
    { level: "debug", base: undefined, formatters: { level: (label) => ({ level: label }) } },
    sink,
  );
  return { logger, lines };
}

/** The registry with only the books pipeline. */
export function booksRegistry(): Registry {
  return new Registry([booksPipeline]);
}

/** The fake Google Books API behind the fault-injecting test server; closed after the test. */
export async function startBooksFake(
  options: GoogleBooksFakeOptions = {},
): Promise<{ fake: GoogleBooksFake; server: FakeServer }> {
  const fake = new GoogleBooksFake({
    quirks: { drift: false, shortPages: false, repeats: false },
    ...options,
  });
  const server = await startFakeServer(fake.handle);
  onTestFinished(() => server.close());
  return { fake, server };
}

/** An SMTP capture closed after the test. */
export async function startCapture(auth?: {
  user: string;
  password: string;
}): Promise<SmtpCapture> {
  const smtp = await startSmtpCapture(auth ? { auth } : {});
  onTestFinished(() => smtp.close());
  return smtp;
}

/** A migrated runtime with the books pipeline, captured logs and `pipelines.books` settings. */
export async function openBooksRuntime(
  h: DialectHarness,
  options: { clock?: Clock; books?: Record<string, unknown> } = {},
): Promise<{ runtime: Runtime; logs: LogLine[] }> {
  const base = await openTestRuntime(h, { clock: options.clock, registry: booksRegistry() });
  const { logger, lines } = captureLogger();
  const runtime: Runtime = {
    ...base,
    logger,
    config: {
      ...base.config,
      pipelines: {
        books: {
          requests_per_second: 1000,
          retry_max_attempts: 1,
          use_env: false,
          ...options.books,
        },
      },
    },
  };
  return { runtime, logs: lines };
}

/** The documented example params, with overrides. */
export function exampleParams(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    queries: ["intitle:consulting", "subject:management"],
    max_per_run: 80,
    google_books: { langRestrict: "ja", printType: "books", orderBy: "newest" },
    select: { count: 5 },
    mail: { to: "me@example.com", from: "digest@example.com", subject: "New books" },
    ...overrides,
  };
}

/** Adds a books job. */
export async function addBooksJob(
  runtime: Runtime,
  name: string,
  params: Record<string, unknown>,
  schedule: string | null = null,
): Promise<void> {
  await new JobService(runtime.db, runtime.registry, runtime.clock).add({
    name,
    type: "books.run",
    params,
    schedule,
    timezone: "UTC",
    enabled: true,
  });
}

/** The cursor DAO on the runtime's database. */
export function cursorRepo(runtime: Runtime): CollectCursorRepo {
  return new CollectCursorRepo(typed<BooksTables>(runtime.db), runtime.clock);
}

/** Log messages only, in order. */
export function messages(lines: readonly LogLine[]): string[] {
  return lines.map((l) => l.msg);
}
