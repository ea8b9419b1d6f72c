import type { DemoContext, DemoRunResult, PipelineServices } from "tidemark";
import { startFakeServer, typed } from "tidemark/kit";
import { GoogleBooksFake } from "./fake/google-books-fake.ts";
import { type CapturedMail, startSmtpCapture } from "./fake/smtp-capture.ts";
import { CollectCursorRepo } from "./repos/cursor-repo.ts";
import type { BooksTables } from "./tables.ts";

const JOB = "consultant-books";
/** The documented example params, minus the key (the fake needs none). */
const PARAMS = {
  queries: ["intitle:consulting", "subject:management"],
  max_per_run: 80,
  google_books: { langRestrict: "ja", printType: "books", orderBy: "newest" },
  select: { count: 5 },
  mail: { to: "me@example.com", from: "digest@example.com", subject: "New books" },
};

function pad(cells: string[], widths: number[]): string {
  return cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ");
}

async function printCursors(
  services: Pick<PipelineServices, "db" | "clock">,
  print: (line: string) => void,
): Promise<void> {
  const rows = await new CollectCursorRepo(
    typed<BooksTables>(services.db),
    services.clock,
  ).listCollectCursors();
  // The hash's start only, and whole seconds: the table fits 80 columns.
  const table = [
    ["job_name", "start_index", "is_exhausted", "last_updated_at", "hash"],
    ...rows.map((r) => [
      r.job_name,
      String(r.start_index),
      r.is_exhausted ? "1" : "0",
      r.last_updated_at.replace(/\.\d+Z$/, "Z"),
      `${r.query_set_hash.slice(0, 8)}…`,
    ]),
  ];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  print("  SELECT job_name, start_index, is_exhausted, last_updated_at,");
  print("         substr(query_set_hash, 1, 8) AS hash FROM collect_cursor;");
  for (const r of table) print(`  ${pad(r, widths)}`);
}

function printRun(n: number, r: DemoRunResult, print: (line: string) => void): void {
  const s = r.summary;
  print(`Run ${n}: ${r.status}`);
  print(
    `  collect: startIndex ${String(s.start_index)} → ${String(s.next_start_index)} (stop: ${String(s.stop_reason)}), ` +
      `${String(s.items)} items in ${String(s.requests)} requests, ${String(s.unique_books)} distinct books, ${String(s.new_books)} new`,
  );
  print(
    `  quota: ${String(s.quota_used_today)}/${String(s.quota_limit)} requests today (Pacific time)`,
  );
  const moved = Number(s.next_start_index) - Number(s.start_index);
  if (s.stop_reason === "max_per_run" && moved < 40) {
    print(
      `  (a query returned a short page, so the shared cursor moved ${moved}: no query skips items)`,
    );
  }
  print(`  mail: ${String(s.mail)}`);
  if (r.error) print(`  error: ${r.error}`);
}

function printMail(mail: CapturedMail, print: (line: string) => void): void {
  print(`  captured mail → to: ${mail.to.join(", ")}, subject: ${JSON.stringify(mail.subject)}`);
  for (const line of mail.text.split("\n").filter((l) => /^\d+\. /.test(l))) print(`    ${line}`);
}

/**
 * `tidemark demo` for books: the fake Google Books API and an SMTP capture on local ports, the
 * issue's example job, two runs showing the shared cursor advancing and the mailed digests.
 */
export async function runBooksDemo(ctx: DemoContext): Promise<void> {
  const { print } = ctx;
  const fake = new GoogleBooksFake({
    sizes: { "intitle:consulting": 130, "subject:management": 95 },
  });
  const api = await startFakeServer(fake.handle);
  const smtp = await startSmtpCapture();
  try {
    const { services } = ctx;
    // The demo's runs talk to its fakes only, whatever the shell exports.
    const books = {
      base_url: api.url,
      requests_per_second: 1000,
      retry_max_attempts: 2,
      smtp: { host: smtp.host, port: smtp.port },
      use_env: false,
    };
    print(
      `Fake Google Books API: ${api.url}/books/v1/volumes   SMTP capture: ${smtp.host}:${smtp.port}`,
    );
    await services.jobs.add({
      name: JOB,
      type: "books.run",
      params: PARAMS,
      schedule: "0 7 * * *",
      timezone: "Asia/Tokyo",
      enabled: true,
    });
    print(
      `Job ${JOB}: queries ${PARAMS.queries.join(" + ")}, max_per_run ${PARAMS.max_per_run}, 5 books per digest`,
    );
    print(
      "Both queries share one cursor: each run asks each query for 40 items at the same startIndex.",
    );
    for (const n of [1, 2]) {
      const report = await ctx.runJob({
        job: JOB,
        type: "books.run",
        params: PARAMS,
        settings: books,
      });
      printRun(n, report, print);
      await printCursors(services, print);
      const mail = smtp.messages[n - 1];
      if (mail) printMail(mail, print);
    }
    print("API calls seen by the fake (query@startIndex+maxResults):");
    for (const c of fake.calls) print(`  ${c.q}@${c.startIndex}+${c.maxResults}`);
    print(`Start over:  ${ctx.command(`job cursor reset ${JOB} --yes`)}`);
    print(`Mail again:  ${ctx.command(`mail reset ${JOB} --yes`)}`);
    print(`Its runs:    ${ctx.command(`runs ls --job ${JOB}`)}`);
  } finally {
    await smtp.close();
    await api.close();
  }
}
