// The panel's reset action, on the services the dashboard hands it (no Runtime).
import type { PanelServices } from "tidemark";
import { typed } from "tidemark/kit";
import { describeEachDialect, openPipelineServices } from "tidemark/testing";
import { expect, it } from "vitest";
import { booksPipeline } from "../../src/pipelines/books/index.ts";
import { booksPanel } from "../../src/pipelines/books/panel/books-panel.ts";
import { CollectCursorRepo } from "../../src/pipelines/books/repos/cursor-repo.ts";
import type { BooksTables } from "../../src/pipelines/books/tables.ts";

describeEachDialect("books panel: reset-cursors", (h) => {
  it("resets a books job's cursors and refuses a name books does not know", async () => {
    const services = await openPipelineServices(h, booksPipeline);
    const panel: PanelServices = { services, recentRuns: async () => [] };
    const reset = booksPanel.actions?.["reset-cursors"];
    if (!reset) throw new Error("no reset-cursors action");
    await services.jobs.add({
      name: "digest",
      type: "books.run",
      params: {
        queries: ["intitle:a"],
        mail: { to: "me@example.com", from: "d@example.com", subject: "New" },
      },
      schedule: null,
      timezone: "UTC",
      enabled: true,
    });
    const cursors = new CollectCursorRepo(typed<BooksTables>(services.db), services.clock);
    await cursors.upsertCollectCursor("digest", "h1", 40, false);
    expect(await reset.run({ job: "digest" }, panel)).toBe("Reset 1 cursor(s) for job: digest");
    expect(await cursors.listCollectCursors("digest")).toEqual([]);
    await expect(reset.run({ job: "nope" }, panel)).rejects.toThrow(/unknown job "nope"/);
  });
});
