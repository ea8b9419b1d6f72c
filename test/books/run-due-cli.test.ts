// `tidemark run-due --dry-run` through the CLI, with the pipeline configured in tidemark.yaml.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { sql } from "kysely";
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import {
  booksRegistry,
  cursorRepo,
  startBooksFake,
  startCapture,
} from "./support/books-harness.ts";
import { cliEnv, runtimeOn } from "./support/cli-env.ts";

describeEachDialect("tidemark run-due with a books job", (h) => {
  it("runs the due job on --dry-run: digest printed, nothing mailed, cursor moved", async () => {
    const { server } = await startBooksFake({
      sizes: { "intitle:consulting": 300, "subject:management": 300 },
    });
    const smtp = await startCapture();
    const { cwd, env, target } = await cliEnv(h);
    writeFileSync(
      path.join(cwd, "tidemark.yaml"),
      [
        "pipelines:",
        "  books:",
        `    base_url: ${server.url}`,
        "    requests_per_second: 1000",
        `    smtp: { host: ${smtp.host}, port: ${smtp.port} }`,
        "",
      ].join("\n"),
    );
    const cli = (argv: string[]) => runCli(argv, { cwd, env, registry: booksRegistry() });
    const params = JSON.stringify({
      queries: ["intitle:consulting", "subject:management"],
      max_per_run: 80,
      select: { count: 3 },
      mail: { to: "me@example.com", from: "digest@example.com", subject: "New books" },
    });
    const add = await cli([
      "job",
      "add",
      "consultant-books",
      "--type",
      "books.run",
      "--params",
      params,
      "--schedule",
      "0 * * * *",
    ]);
    expect(add.code).toBe(0);
    expect((await cli(["run-due", "--dry-run"])).stdout).toBe("Nothing due.\n");

    // Created two hours ago: the hourly schedule is due.
    const runtime = await runtimeOn(target, env.TIDEMARK_DATA_DIR!);
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000).toISOString();
    await sql`update tm_jobs set created_at = ${twoHoursAgo}`.execute(runtime.db.kysely);

    const due = await cli(["run-due", "--dry-run"]);
    expect(due.code).toBe(0);
    expect(due.stdout).toMatch(/^consultant-books: succeeded \(run /);
    expect(due.stdout).toContain("  mail: dry run: not sent\n");
    expect(due.stdout).toContain("  digest: New books: 3 new books for consultant-books\n");
    expect(smtp.messages).toEqual([]);
    const cursors = await cursorRepo(runtime).listCollectCursors("consultant-books");
    expect(cursors.map((c) => [c.start_index, c.is_exhausted])).toEqual([[40, false]]);

    // A real run uses the SMTP settings of tidemark.yaml.
    const sent = await cli(["run", "consultant-books"]);
    expect(sent.code).toBe(0);
    expect(smtp.messages.map((m) => m.subject)).toEqual(["New books"]);
  });
});
