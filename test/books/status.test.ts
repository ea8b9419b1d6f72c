// The books status (monitoring/status.ts) and the panel blocks it feeds, on SQLite and Postgres.
import type { PanelServices } from "tidemark";
import { typed } from "tidemark/kit";
import { describeEachDialect, openPipelineServices } from "tidemark/testing";
import { expect, it } from "vitest";
import { normalizeVolume } from "../../src/pipelines/books/client/normalize-volume.ts";
import { volumeSchema } from "../../src/pipelines/books/client/volumes-schema.ts";
import { booksPipeline } from "../../src/pipelines/books/index.ts";
import { booksStatus } from "../../src/pipelines/books/monitoring/status.ts";
import { booksPanel } from "../../src/pipelines/books/panel/books-panel.ts";
import { BookRepo } from "../../src/pipelines/books/repos/book-repo.ts";
import { CollectCursorRepo } from "../../src/pipelines/books/repos/cursor-repo.ts";
import { MailHistoryRepo } from "../../src/pipelines/books/repos/mail-history-repo.ts";
import { QuotaRepo } from "../../src/pipelines/books/repos/quota-repo.ts";
import type { BooksSettings } from "../../src/pipelines/books/settings.ts";
import type { BooksTables } from "../../src/pipelines/books/tables.ts";

describeEachDialect("books status", (h) => {
  it("reads today's quota over every key, the books known, the cursors and the last digests", async () => {
    const services = await openPipelineServices<BooksSettings>(h, booksPipeline, {
      settings: { daily_request_limit: 10 },
    });
    const db = typed<BooksTables>(services.db);
    const empty = await booksStatus(services);
    expect(empty).toMatchObject({ quota: { used: 0, limit: 10 }, booksKnown: 0 });
    expect(empty.cursors).toEqual([]);
    expect(empty.lastDigests).toEqual([]);

    for (const key of ["k1", "k1", "k2"]) {
      await new QuotaRepo(db, services.clock, key, 10).tryReserve();
    }
    const book = (id: string) => ({
      book: normalizeVolume(volumeSchema.parse({ id, volumeInfo: { title: id } })),
      query: "q",
    });
    await new BookRepo(db).upsertForJob([book("A"), book("B")], {
      jobName: "j",
      runId: "r1",
      now: "2026-05-01T10:00:00.000Z",
    });
    await new CollectCursorRepo(db, services.clock).upsertCollectCursor("j", "h1", 40, false);
    const mail = new MailHistoryRepo(db);
    await mail.record("j", ["A"], {
      runId: "r1",
      messageId: null,
      sentAt: "2026-05-01T10:00:00.000Z",
    });
    await mail.record("j", ["B"], {
      runId: "r2",
      messageId: null,
      sentAt: "2026-05-02T10:00:00.000Z",
    });
    await mail.record("i", ["A", "B"], {
      runId: "r3",
      messageId: null,
      sentAt: "2026-05-01T09:00:00.000Z",
    });

    const status = await booksStatus(services);
    expect(status.quota.used).toBe(3);
    expect(status.booksKnown).toBe(2);
    expect(status.cursors.map((c) => [c.job_name, c.start_index])).toEqual([["j", 40]]);
    expect(status.lastDigests).toEqual([
      { job_name: "i", run_id: "r3", sent_at: "2026-05-01T09:00:00.000Z", books: 2 },
      { job_name: "j", run_id: "r2", sent_at: "2026-05-02T10:00:00.000Z", books: 1 },
    ]);

    const panel: PanelServices = { services, recentRuns: async () => [] };
    const { blocks } = await booksPanel.view(panel);
    expect(blocks[0]).toMatchObject({
      kind: "stats",
      items: [
        { value: "3 / 10", tone: "ok" },
        { label: "books known", value: 2 },
      ],
    });
    expect(blocks.at(-1)).toMatchObject({
      title: "Last digest",
      rows: [
        ["i", "2026-05-01T09:00:00.000Z", 2, "r3"],
        ["j", "2026-05-02T10:00:00.000Z", 1, "r2"],
      ],
    });
  });
});
