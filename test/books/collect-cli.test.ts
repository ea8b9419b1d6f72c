// `tidemark books collect <job-name>`: runs a stored books.run job through the engine and says
// where its cursor went (docs/pipelines/books.md, "Commands").
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { cursorRepo } from "./support/books-harness.ts";
import { booksCli, runtimeOn } from "./support/cli-env.ts";

describeEachDialect("tidemark books collect", (h) => {
  it("runs the job, prints the cursor's move, and refuses bad names and limits", async () => {
    const { smtp, env, target, cli } = await booksCli(h, { "intitle:consulting": 300 });
    const params = JSON.stringify({
      queries: ["intitle:consulting"],
      max_per_run: 40,
      select: { count: 3 },
      mail: { to: "me@example.com", from: "digest@example.com", subject: "New books" },
    });
    const add = await cli(["job", "add", "cb", "--type", "books.run", "--params", params]);
    expect(add.code).toBe(0);

    const dry = await cli(["books", "collect", "cb", "--dry-run", "--limit", "10"]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^cb: succeeded \(run /);
    expect(dry.stdout).toContain(
      "collect: 10 item(s) from startIndex 0, next startIndex 10 (stopped: max_per_run)",
    );
    expect(dry.stdout).toContain("mail: dry run: not sent\n");
    expect(smtp.messages).toEqual([]);
    const runtime = await runtimeOn(target, env.TIDEMARK_DATA_DIR!);
    const cursors = await cursorRepo(runtime).listCollectCursors("cb");
    expect(cursors.map((c) => c.start_index)).toEqual([10]);

    const sent = await cli(["books", "collect", "cb"]);
    expect(sent.code).toBe(0);
    expect(sent.stdout).toContain("next startIndex 50");
    expect(smtp.messages.map((m) => m.subject)).toEqual(["New books"]);

    const badLimit = await cli(["books", "collect", "cb", "--limit", "0"]);
    expect(badLimit.code).toBe(2);
    const unknown = await cli(["books", "collect", "nosuch"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown job "nosuch"');
  });
});
