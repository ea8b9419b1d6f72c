// The manual cursor check of docs/ops/collect.md, for real: the `tidemark` binary in a child process against the
// fake API, then `SELECT * FROM collect_cursor` on the database it wrote (data/tidemark.db).
import { writeFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { expect, it } from "vitest";
import { apiKeyHash } from "../../src/pipelines/books/repos/quota-repo.ts";
import { computeQuerySetHash } from "../../src/pipelines/books/stages/collect/query-set-hash.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { spawnCli } from "../../src/testing/run-cli.ts";
import { startBooksFake, startCapture } from "./support/books-harness.ts";
import { cliEnv } from "./support/cli-env.ts";

// The documented example params, as written.
const JOB_YAML = `queries: ["intitle:consulting", "subject:management"]
max_per_run: 80
google_books: { langRestrict: ja, printType: books, orderBy: newest }
api_key_env: GOOGLE_BOOKS_API_KEY
select: { count: 5 }
mail: { to: me@example.com, from: digest@example.com, subject: New books }
`;
const KEY = "test-key-not-in-db-0123456789";

describeEachDialect("tidemark CLI: run, inspect collect_cursor, reset", (h) => {
  it("shows the cursor rows the manual check expects", async () => {
    const { fake, server } = await startBooksFake({
      sizes: { "intitle:consulting": 300, "subject:management": 300 },
      apiKeys: [KEY],
    });
    const smtp = await startCapture();
    const { cwd, env: dbEnv, target } = await cliEnv(h);
    // SQLite: the default location, exactly `data/tidemark.db` under the working directory.
    const env: NodeJS.ProcessEnv = {
      ...(target.dialect === "postgres" ? dbEnv : {}),
      TIDEMARK_GOOGLE_BOOKS_URL: server.url,
      GOOGLE_BOOKS_API_KEY: KEY,
    };
    const query = async (text: string): Promise<Array<Record<string, unknown>>> => {
      if (target.dialect === "sqlite") {
        const db = new Database(path.join(cwd, "data", "tidemark.db"), { readonly: true });
        try {
          return db.prepare(text).all() as Array<Record<string, unknown>>;
        } finally {
          db.close();
        }
      }
      const client = new pg.Client({ connectionString: target.url });
      await client.connect();
      try {
        return (await client.query(text)).rows;
      } finally {
        await client.end();
      }
    };
    const cli = (argv: string[], extra: NodeJS.ProcessEnv = {}) =>
      spawnCli(argv, { cwd, env: { ...env, ...extra } });

    writeFileSync(path.join(cwd, "job.yaml"), JOB_YAML);
    const add = await cli([
      "job",
      "add",
      "consultant-books",
      "--type",
      "books.run",
      "--params-file",
      "job.yaml",
      "--schedule",
      "0 7 * * *",
      "--timezone",
      "Asia/Tokyo",
    ]);
    expect(add.stderr).toBe("");
    expect(add.code).toBe(0);

    // 1. First run (startIndex 0) — dry run: digest printed, nothing mailed.
    const first = await cli(["run", "consultant-books", "--dry-run"]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^consultant-books: succeeded \(run consultant-books_/);
    expect(first.stdout).toContain("  next_start_index: 40\n");
    expect(first.stdout).toContain("  digest: New books: 5 new books for consultant-books");
    expect(fake.calls.every((c) => c.key === KEY)).toBe(true);

    // 2. sqlite3 data/tidemark.db "SELECT * FROM collect_cursor"
    const hash = computeQuerySetHash(["intitle:consulting", "subject:management"]);
    const rows1 = await query("SELECT * FROM collect_cursor");
    expect(rows1).toHaveLength(1);
    expect(rows1[0]).toMatchObject({
      job_name: "consultant-books",
      query_set_hash: hash,
      start_index: 40,
      is_exhausted: 0,
    });
    expect(String(rows1[0]!.query_set_hash)).toMatch(/^[0-9a-f]{64}$/);
    const firstUpdate = new Date(String(rows1[0]!.last_updated_at)).getTime();
    expect(Number.isNaN(firstUpdate)).toBe(false);

    // 3. Second run carries on from the cursor.
    const second = await cli(["run", "consultant-books", "--dry-run"]);
    expect(second.code).toBe(0);
    const rows2 = await query("SELECT * FROM collect_cursor");
    expect(rows2).toHaveLength(1);
    expect(rows2[0]).toMatchObject({ start_index: 80, is_exhausted: 0 });
    expect(new Date(String(rows2[0]!.last_updated_at)).getTime()).toBeGreaterThanOrEqual(
      firstUpdate,
    );
    expect(fake.calls.map((c) => c.startIndex)).toEqual([0, 0, 40, 40]);

    // A --limit below the number of queries would collect nothing: refused, no request made.
    const tooSmall = await cli(["run", "consultant-books", "--dry-run", "--limit", "1"]);
    expect(tooSmall.code).toBe(2);
    expect(tooSmall.stdout + tooSmall.stderr).toContain(
      "--limit 1 is below the job's 2 queries: Collect needs at least one item per query",
    );
    expect(fake.calls).toHaveLength(4);

    // 4. Reset, 5. nothing left for the job.
    const reset = await cli(["job", "cursor", "reset", "consultant-books", "--yes"]);
    expect(reset.stdout).toBe("Reset 1 cursor(s) for job: consultant-books\n");
    expect(await query("SELECT * FROM collect_cursor WHERE job_name='consultant-books'")).toEqual(
      [],
    );

    // A real run mails through TIDEMARK_SMTP_* and starts again at 0.
    const sent = await cli(["run", "consultant-books"], {
      TIDEMARK_SMTP_HOST: smtp.host,
      TIDEMARK_SMTP_PORT: String(smtp.port),
    });
    expect(sent.code).toBe(0);
    expect(sent.stdout).toContain("  mail: sent to me@example.com\n");
    expect(smtp.messages.map((m) => [m.to, m.subject])).toEqual([
      [["me@example.com"], "New books"],
    ]);
    expect(await query("SELECT start_index FROM collect_cursor")).toEqual([{ start_index: 40 }]);

    // The key is read from the environment only: its hash is stored, never the key.
    const dump = JSON.stringify([
      await query("SELECT * FROM tm_jobs"),
      await query("SELECT * FROM tm_runs"),
      await query(
        `SELECT * FROM ${target.dialect === "sqlite" ? "books_quota_usage" : "books.quota_usage"}`,
      ),
    ]);
    expect(dump).not.toContain(KEY);
    expect(dump).toContain(apiKeyHash(KEY));
    expect(first.stderr + second.stderr + sent.stderr).not.toContain(KEY);
  }, 180_000);
});
