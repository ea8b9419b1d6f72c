import { describe, expect, it } from "vitest";
import {
  normalizeVolume,
  publishedSortKey,
} from "../../src/pipelines/books/client/normalize-volume.ts";
import { volumeSchema } from "../../src/pipelines/books/client/volumes-schema.ts";

const volume = (volumeInfo: Record<string, unknown>) =>
  volumeSchema.parse({ id: "abc123DEF456", volumeInfo });

describe("normalizeVolume", () => {
  it("keeps the reader's fields, ISBN-13 first-class, thumbnails over https", () => {
    const book = normalizeVolume(
      volume({
        title: " The Trusted Advisor ",
        authors: ["David Maister", " "],
        publishedDate: "2002-02",
        industryIdentifiers: [
          { type: "ISBN_10", identifier: "0-7432-1234-X" },
          { type: "ISBN_13", identifier: "978-0-7432-1234-5" },
        ],
        imageLinks: { thumbnail: "http://books.google.com/t.jpg" },
        averageRating: 4.5,
        ratingsCount: 12,
      }),
    );
    expect(book).toMatchObject({
      volume_id: "abc123DEF456",
      title: "The Trusted Advisor",
      authors: ["David Maister"],
      published_date: "2002-02",
      published_sort: 20020200,
      isbn13: "9780743212345",
      isbn10: "074321234X",
      thumbnail: "https://books.google.com/t.jpg",
      average_rating: 4.5,
      description: null,
    });
    expect(book.content_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("copes with missing fields (Google leaves out what a volume lacks)", () => {
    const book = normalizeVolume(volume({ title: "" }));
    expect(book).toMatchObject({
      title: "(untitled)",
      page_count: null,
      authors: [],
      isbn13: null,
    });
  });

  it("refuses a field of the wrong type or an impossible value, naming it", () => {
    for (const [info, path] of [
      [{ pageCount: "many" }, "volumeInfo.pageCount"],
      [{ authors: "Someone" }, "volumeInfo.authors"],
      [{ title: null }, "volumeInfo.title"],
      [{ averageRating: 1e300 }, "volumeInfo.averageRating"],
      [{ ratingsCount: -1 }, "volumeInfo.ratingsCount"],
      [{ imageLinks: { thumbnail: 7 } }, "volumeInfo.imageLinks.thumbnail"],
      [
        { industryIdentifiers: [{ type: "ISBN_13" }] },
        "volumeInfo.industryIdentifiers.0.identifier",
      ],
    ] as const) {
      const parsed = volumeSchema.safeParse({ id: "abc123DEF456", volumeInfo: info });
      expect(parsed.success, path).toBe(false);
      expect(parsed.error?.issues[0]?.path.join("."), JSON.stringify(info)).toBe(path);
    }
  });

  it("changes its content hash only when a stored field changes", () => {
    const a = normalizeVolume(volume({ title: "A", description: "x" }));
    expect(
      normalizeVolume(volume({ title: "A", description: "x", maturityRating: "NOT_MATURE" }))
        .content_hash,
    ).toBe(a.content_hash);
    expect(normalizeVolume(volume({ title: "A", description: "y" })).content_hash).not.toBe(
      a.content_hash,
    );
  });

  it("sorts Google's partial dates: year < year-month < full date, unknown last", () => {
    expect(publishedSortKey("1894")).toBe(18940000);
    expect(publishedSortKey("2022-08")).toBe(20220800);
    expect(publishedSortKey("2022-08-23")).toBe(20220823);
    expect(publishedSortKey("circa 1900")).toBe(0);
    expect(publishedSortKey(undefined)).toBe(0);
  });
});
