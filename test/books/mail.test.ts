// Select → Mail end to end: nodemailer to an in-process smtp-server, on SQLite and Postgres.
import { expect, it } from "vitest";
import { executeRun, type RunReport } from "../../src/engine/runs/job-runner.ts";
import type { Runtime } from "../../src/engine/runtime/runtime.ts";
import { typed } from "../../src/infra/db/open-database.ts";
import { resetMailHistory } from "../../src/pipelines/books/commands/reset-command.ts";
import { computeQuerySetHash } from "../../src/pipelines/books/stages/collect/query-set-hash.ts";
import type { BooksTables } from "../../src/pipelines/books/tables.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import {
  addBooksJob,
  cursorRepo,
  exampleParams,
  openBooksRuntime,
  startBooksFake,
  startCapture,
} from "./support/books-harness.ts";

const JOB = "consultant-books";
const SIZES = { "intitle:consulting": 200, "subject:management": 200 };

function run(
  runtime: Runtime,
  params: Record<string, unknown>,
  dryRun = false,
): Promise<RunReport> {
  return executeRun(runtime, { jobName: JOB, jobType: "books.run", params, dryRun });
}

async function mailedTitles(runtime: Runtime, runId: string): Promise<string[]> {
  const rows = await typed<BooksTables>(runtime.db)
    .selectFrom("books.mail_history as mh")
    .innerJoin("books.volume as v", "v.volume_id", "mh.volume_id")
    .select(["v.title", "v.subtitle"])
    .where("mh.run_id", "=", runId)
    .execute();
  return rows.map((r) => (r.subtitle ? `${r.title}: ${r.subtitle}` : r.title));
}

async function historyCount(runtime: Runtime): Promise<number> {
  const rows = await typed<BooksTables>(runtime.db)
    .selectFrom("books.mail_history")
    .selectAll()
    .execute();
  return rows.length;
}

describeEachDialect("books digest mail", (h) => {
  async function setup(
    sizes: Record<string, number> = SIZES,
    smtpOverride?: Record<string, unknown>,
  ) {
    const clock = new ManualClock("2026-05-01T09:30:00.000Z");
    const { fake, server } = await startBooksFake({ sizes });
    const smtp = await startCapture({ user: "digest-bot", password: "s3cret-pw" });
    const { runtime, logs } = await openBooksRuntime(h, {
      clock,
      books: {
        base_url: server.url,
        smtp: smtpOverride ?? {
          host: smtp.host,
          port: smtp.port,
          user: "digest-bot",
          password: "s3cret-pw",
        },
      },
    });
    const params = exampleParams();
    await addBooksJob(runtime, JOB, params);
    return { clock, fake, smtp, runtime, logs, params };
  }

  it("mails the digest to the recipient with the subject and the selected books", async () => {
    const { smtp, runtime, logs, params } = await setup();
    const report = await run(runtime, params);
    expect(report.status).toBe("succeeded");
    expect(report.summary).toMatchObject({ selected: 5, mail: "sent to me@example.com" });
    expect(smtp.messages).toHaveLength(1);
    const mail = smtp.messages[0]!;
    expect(mail.to).toEqual(["me@example.com"]);
    expect(mail.from).toBe("digest@example.com");
    expect(mail.subject).toBe("New books");
    expect(mail.user).toBe("digest-bot");
    expect(mail.headers.get("content-type")).toMatch(/multipart\/alternative/);

    const titles = await mailedTitles(runtime, report.runId);
    expect(titles).toHaveLength(5);
    const numbered = mail.text.split("\n").filter((l) => /^\d+\. /.test(l));
    expect(numbered.map((l) => l.replace(/^\d+\. /, "")).sort()).toEqual([...titles].sort());
    for (const t of titles)
      expect(mail.html).toContain(t.replace(/&/g, "&amp;").replace(/'/g, "&#39;"));
    expect(JSON.stringify(logs)).not.toContain("s3cret-pw");
  });

  it("never mails a book twice, and mail reset makes the job's books eligible again", async () => {
    const { smtp, runtime, clock, params } = await setup();
    const first = await run(runtime, params);
    clock.advance(3_600_000);
    const second = await run(runtime, params);
    const a = await mailedTitles(runtime, first.runId);
    const b = await mailedTitles(runtime, second.runId);
    expect(smtp.messages).toHaveLength(2);
    expect(a.filter((t) => b.includes(t))).toEqual([]);
    expect(await historyCount(runtime)).toBe(10);

    expect(await resetMailHistory(runtime, JOB)).toBe(10);
    expect(await historyCount(runtime)).toBe(0);
    clock.advance(3_600_000);
    const third = await run(runtime, params);
    const c = await mailedTitles(runtime, third.runId);
    expect(c).toEqual(expect.arrayContaining(a)); // the best books come back first
  });

  it("--dry-run prints the digest, sends nothing, records no history, but collects and moves the cursor", async () => {
    const { smtp, runtime, params } = await setup();
    const report = await run(runtime, params, true);
    expect(report.status).toBe("succeeded");
    expect(report.summary.mail).toBe("dry run: not sent");
    expect(String(report.summary.digest)).toMatch(
      /^New books: 5 new books for consultant-books\n\n1\. /,
    );
    expect(smtp.messages).toEqual([]);
    expect(await historyCount(runtime)).toBe(0);
    expect(report.summary.new_books).toBeGreaterThan(60);
    const hash = computeQuerySetHash(params.queries as string[]);
    expect(await cursorRepo(runtime).getCollectCursor(JOB, hash)).toMatchObject({
      start_index: 40,
    });
  });

  it("reports skipped once the query set is exhausted and nothing is left to mail", async () => {
    const { smtp, runtime, clock, params } = await setup({
      "intitle:consulting": 3,
      "subject:management": 2,
    });
    const first = await run(runtime, params);
    expect(first.summary).toMatchObject({ stop_reason: "exhausted", selected: 5 });
    clock.advance(3_600_000);
    const second = await run(runtime, params);
    expect(second.status).toBe("skipped");
    expect(second.summary).toMatchObject({
      collect: "skipped: exhausted",
      mail: "nothing to send",
    });
    expect(smtp.messages).toHaveLength(1);
  });

  it("still mails the backlog while Collect is skipped as exhausted", async () => {
    const { smtp, runtime, clock } = await setup({
      "intitle:consulting": 6,
      "subject:management": 6,
    });
    const params = exampleParams({ select: { count: 4 } });
    await run(runtime, params);
    clock.advance(3_600_000);
    const second = await run(runtime, params);
    expect(second.status).toBe("succeeded");
    expect(second.summary).toMatchObject({ collect: "skipped: exhausted", selected: 4 });
    expect(smtp.messages).toHaveLength(2);
  });

  it("fails the run and records no history when SMTP refuses, keeping the collected books for next time", async () => {
    const { smtp, runtime, params, fake } = await setup(SIZES, {
      host: "127.0.0.1",
      port: 1, // nothing listens there
    });
    const report = await run(runtime, params);
    expect(report.status).toBe("failed");
    expect(report.error).toMatch(/^mail not sent: SMTP server 127\.0\.0\.1:1: .*ECONNREFUSED/);
    // What Collect and Upsert did is still the run's summary.
    expect(report.summary).toMatchObject({
      next_start_index: 40,
      selected: 5,
      mail: expect.stringMatching(/^not sent: .*ECONNREFUSED/),
    });
    expect(await historyCount(runtime)).toBe(0);
    expect(smtp.messages).toEqual([]);
    const hash = computeQuerySetHash(params.queries as string[]);
    expect(await cursorRepo(runtime).getCollectCursor(JOB, hash)).toMatchObject({
      start_index: 40,
    });
    expect(fake.calls).toHaveLength(2);
  });

  it("fails before any request when SMTP is not configured and the run is not a dry run", async () => {
    const clock = new ManualClock("2026-05-01T09:30:00.000Z");
    const { fake, server } = await startBooksFake({ sizes: SIZES });
    const { runtime } = await openBooksRuntime(h, { clock, books: { base_url: server.url } });
    const params = exampleParams();
    await addBooksJob(runtime, JOB, params);
    const report = await run(runtime, params);
    expect(report.status).toBe("failed");
    expect(report.error).toMatch(
      /SMTP is not configured: set pipelines\.books\.smtp\.host .* TIDEMARK_SMTP_HOST/,
    );
    expect(fake.calls).toEqual([]);
  });
});
