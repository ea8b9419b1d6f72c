// Upsert (books by volume id) and Select (the job's best unmailed books), on SQLite and Postgres.
import { expect, it } from "vitest";
import type { Runtime } from "../../src/engine/runtime/runtime.ts";
import { typed } from "../../src/infra/db/open-database.ts";
import { normalizeVolume } from "../../src/pipelines/books/client/normalize-volume.ts";
import { volumeSchema } from "../../src/pipelines/books/client/volumes-schema.ts";
import { BookRepo } from "../../src/pipelines/books/repos/book-repo.ts";
import { selectBooks } from "../../src/pipelines/books/repos/digest-candidates.ts";
import { MailHistoryRepo } from "../../src/pipelines/books/repos/mail-history-repo.ts";
import type { BooksTables } from "../../src/pipelines/books/tables.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openBooksRuntime } from "./support/books-harness.ts";

function found(id: string, info: Record<string, unknown>, query = "q") {
  return {
    book: normalizeVolume(volumeSchema.parse({ id, volumeInfo: { title: id, ...info } })),
    query,
  };
}

const NOW = "2026-05-01T10:00:00.000Z";

async function upsert(runtime: Runtime, job: string, books: ReturnType<typeof found>[], now = NOW) {
  return new BookRepo(typed<BooksTables>(runtime.db)).upsertForJob(books, {
    jobName: job,
    runId: `${job}_r`,
    now,
  });
}

describeEachDialect("books upsert and select", (h) => {
  it("collapses duplicates across pages and queries, keeps ISBN-13, and is idempotent", async () => {
    const { runtime } = await openBooksRuntime(h);
    const isbn = { industryIdentifiers: [{ type: "ISBN_13", identifier: "9780743212342" }] };
    const counts = await upsert(runtime, "j", [
      found("A", isbn, "intitle:x"),
      found("B", {}, "intitle:x"),
      found("A", isbn, "subject:y"),
    ]);
    expect(counts).toEqual({ unique: 2, inserted: 2, updated: 0, unchanged: 0, newForJob: 2 });
    const db = typed<BooksTables>(runtime.db);
    const a = await db
      .selectFrom("books.volume")
      .selectAll()
      .where("volume_id", "=", "A")
      .executeTakeFirstOrThrow();
    expect(a.isbn13).toBe("9780743212342");
    const link = await db
      .selectFrom("books.job_volume")
      .selectAll()
      .where("volume_id", "=", "A")
      .executeTakeFirstOrThrow();
    expect(link.query).toBe("intitle:x");

    expect(await upsert(runtime, "j", [found("A", isbn), found("B", {})])).toEqual({
      unique: 2,
      inserted: 0,
      updated: 0,
      unchanged: 2,
      newForJob: 0,
    });
    const changed = await upsert(
      runtime,
      "j",
      [found("B", { description: "now described" })],
      "2026-05-02T10:00:00.000Z",
    );
    expect(changed).toMatchObject({ updated: 1, inserted: 0 });
    const b = await db
      .selectFrom("books.volume")
      .selectAll()
      .where("volume_id", "=", "B")
      .executeTakeFirstOrThrow();
    expect(b).toMatchObject({
      description: "now described",
      first_seen_at: NOW,
      updated_at: "2026-05-02T10:00:00.000Z",
    });

    // Another job finding the same volume gets its own link, not a second book.
    expect(await upsert(runtime, "k", [found("A", isbn)])).toMatchObject({
      unchanged: 1,
      newForJob: 1,
    });
    expect(await db.selectFrom("books.volume").select("volume_id").execute()).toHaveLength(2);
  });

  it("selects newest-with-description first, skips mailed books and other jobs' books", async () => {
    const { runtime } = await openBooksRuntime(h);
    await upsert(runtime, "j", [
      found("old-desc", { publishedDate: "1999", description: "d" }),
      found("new-nodesc", { publishedDate: "2025-01-01" }),
      found("mid-desc", { publishedDate: "2020-06", description: "d" }),
      found("new-desc", { publishedDate: "2024-03-02", description: "d" }),
      found("undated-desc", { description: "d" }),
      found("mailed", { publishedDate: "2026-01-01", description: "d" }),
    ]);
    await upsert(runtime, "other", [
      found("others-only", { publishedDate: "2026-02-02", description: "d" }),
    ]);
    await new MailHistoryRepo(typed<BooksTables>(runtime.db)).record("j", ["mailed"], {
      runId: "r",
      messageId: null,
      sentAt: NOW,
    });
    const picked = await selectBooks(typed<BooksTables>(runtime.db), "j", {
      count: 10,
      order: "newest",
    });
    expect(picked.map((b) => b.volumeId)).toEqual([
      "new-desc",
      "mid-desc",
      "old-desc",
      "undated-desc",
      "new-nodesc",
    ]);
    const three = await selectBooks(typed<BooksTables>(runtime.db), "j", {
      count: 3,
      order: "newest",
    });
    expect(three).toHaveLength(3);
  });

  it("selects by rating, then ratings count, then newest", async () => {
    const { runtime } = await openBooksRuntime(h);
    await upsert(runtime, "j", [
      found("unrated", { publishedDate: "2025", description: "d" }),
      found("four-many", { averageRating: 4, ratingsCount: 90 }),
      found("five", { averageRating: 5, ratingsCount: 1 }),
      found("four-few", { averageRating: 4, ratingsCount: 3 }),
    ]);
    const picked = await selectBooks(typed<BooksTables>(runtime.db), "j", {
      count: 4,
      order: "rating",
    });
    expect(picked.map((b) => b.volumeId)).toEqual(["five", "four-many", "four-few", "unrated"]);
    expect(picked[0]).toMatchObject({ averageRating: 5, ratingsCount: 1, authors: [] });
  });

  it("breaks ties by the order books were collected, the same on both databases", async () => {
    const { runtime } = await openBooksRuntime(h);
    await upsert(
      runtime,
      "j",
      ["zeta", "Alpha", "beta", "Gamma"].map((id) => found(id, { publishedDate: "2020" })),
    );
    const picked = await selectBooks(typed<BooksTables>(runtime.db), "j", {
      count: 4,
      order: "newest",
    });
    expect(picked.map((b) => b.volumeId)).toEqual(["zeta", "Alpha", "beta", "Gamma"]);
  });
});
