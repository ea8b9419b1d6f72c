// `tidemark run-due --dry-run` through the CLI, with the pipeline configured in tidemark.yaml.
import { sql } from "kysely";
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { cursorRepo } from "./support/books-harness.ts";
import { booksCli, runtimeOn } from "./support/cli-env.ts";

describeEachDialect("tidemark run-due with a books job", (h) => {
  it("runs the due job on --dry-run: digest printed, nothing mailed, cursor moved", async () => {
    const { smtp, env, target, cli } = await booksCli(h, {
      "intitle:consulting": 300,
      "subject:management": 300,
    });
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
