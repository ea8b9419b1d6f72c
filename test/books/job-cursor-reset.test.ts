// `tidemark job cursor reset <job-name> --yes`, and `tidemark mail reset`.
import { expect, it } from "vitest";
import { JobService } from "../../src/engine/jobs/job-service.ts";
import { typed } from "../../src/infra/db/open-database.ts";
import { booksRunExample as BOOKS_EXAMPLE } from "../../src/pipelines/books/params.ts";
import type { BooksTables } from "../../src/pipelines/books/tables.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { booksRegistry, cursorRepo } from "./support/books-harness.ts";
import { cliEnv, runtimeOn } from "./support/cli-env.ts";

const H1 = "1".repeat(64);
const H2 = "2".repeat(64);

describeEachDialect("tidemark job cursor reset / mail reset", (h) => {
  async function seeded() {
    const { cwd, env, target } = await cliEnv(h);
    const runtime = await runtimeOn(target, env.TIDEMARK_DATA_DIR!);
    await new JobService(runtime.db, runtime.registry, runtime.clock).add({
      name: "consultant-books",
      type: "books.run",
      params: BOOKS_EXAMPLE,
      schedule: null,
      timezone: "UTC",
      enabled: true,
    });
    const repo = cursorRepo(runtime);
    await repo.upsertCollectCursor("consultant-books", H1, 120, true);
    await repo.upsertCollectCursor("consultant-books", H2, 40, false);
    await repo.upsertCollectCursor("other-job", H1, 80, false);
    const cli = (argv: string[]) => runCli(argv, { cwd, env, registry: booksRegistry() });
    return { cli, repo, runtime };
  }

  it("refuses without --yes (exit 2) and deletes nothing", async () => {
    const { cli, repo } = await seeded();
    const res = await cli(["job", "cursor", "reset", "consultant-books"]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("without --yes");
    expect(res.stdout).toBe("");
    expect(await repo.listCollectCursors("consultant-books")).toHaveLength(2);
  });

  it("deletes every cursor of the job and prints how many", async () => {
    const { cli, repo } = await seeded();
    const res = await cli(["job", "cursor", "reset", "consultant-books", "--yes"]);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe("Reset 2 cursor(s) for job: consultant-books\n");
    expect(await repo.listCollectCursors("consultant-books")).toEqual([]);
    expect((await repo.listCollectCursors()).map((c) => c.job_name)).toEqual(["other-job"]);

    const again = await cli(["job", "cursor", "reset", "consultant-books", "--yes"]);
    expect(again.stdout).toBe("Reset 0 cursor(s) for job: consultant-books\n");
  });

  it("needs the job name (exit 2)", async () => {
    const { cli } = await seeded();
    const res = await cli(["job", "cursor", "reset", "--yes"]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/missing required argument 'job-name'/);
  });

  it("mail reset refuses without --yes and clears only that job's history with it", async () => {
    const { cli, runtime } = await seeded();
    const db = typed<BooksTables>(runtime.db);
    const row = (job_name: string, volume_id: string) => ({
      job_name,
      volume_id,
      run_id: "r1",
      message_id: "<m@x>",
      sent_at: "2026-05-01T10:00:00.000Z",
    });
    await db
      .insertInto("books.mail_history")
      .values([row("consultant-books", "a"), row("consultant-books", "b"), row("other-job", "a")])
      .execute();

    const refused = await cli(["mail", "reset", "consultant-books"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("without --yes");

    const res = await cli(["mail", "reset", "consultant-books", "--yes"]);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe("Reset 2 mail history record(s) for job: consultant-books\n");
    const left = await db.selectFrom("books.mail_history").select("job_name").execute();
    expect(left).toEqual([{ job_name: "other-job" }]);
  });

  it("refuses a name that is no books job and has no books state (exit 2), changing nothing", async () => {
    const { cli, repo } = await seeded();
    for (const argv of [
      ["job", "cursor", "reset", "nosuch", "--yes"],
      ["mail", "reset", "nosuch", "--yes"],
    ]) {
      const res = await cli(argv);
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/unknown job "nosuch".*books jobs: consultant-books/);
    }
    expect(await repo.listCollectCursors()).toHaveLength(3);
  });

  it("lists cursor reset under `tidemark job` help", async () => {
    const { cli } = await seeded();
    const res = await cli(["job", "cursor", "--help"]);
    expect(res.stdout).toMatch(/reset \[options\] <job-name>/);
  });
});
