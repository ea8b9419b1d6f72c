import { describe, expect, it } from "vitest";
import type { DigestBook } from "../../src/pipelines/books/repos/digest-candidates.ts";
import { plainText, renderDigest } from "../../src/pipelines/books/stages/mail/digest.ts";

const book = (over: Partial<DigestBook> = {}): DigestBook => ({
  volumeId: "v1",
  title: "The Trusted Advisor",
  subtitle: null,
  authors: ["David Maister", "Charles Green"],
  publisher: "Free Press",
  publishedDate: "2001-10-09",
  description: "On <b>trust</b> &amp; advice.",
  isbn13: "9780743212342",
  pageCount: 240,
  averageRating: 4.5,
  ratingsCount: 2,
  thumbnail: "https://books.google.com/t.jpg",
  link: "https://books.google.com/books?id=v1",
  ...over,
});

describe("renderDigest", () => {
  it("lists each book with its title, authors, ISBN-13, description and link in text", () => {
    const d = renderDigest({
      subject: "New books",
      jobName: "j",
      books: [book(), book({ volumeId: "v2", title: "Second" })],
    });
    expect(d.subject).toBe("New books");
    expect(d.text).toContain("New books: 2 new books for j\n\n1. The Trusted Advisor\n");
    expect(d.text).toContain("   David Maister, Charles Green — Free Press, 2001-10-09\n");
    expect(d.text).toContain("   ISBN-13 9780743212342 · 240 pages · rated 4.5/5 (2 ratings)\n");
    expect(d.text).toContain("   On trust & advice.\n");
    expect(d.text).toContain("\n2. Second\n");
    expect(d.text).toContain("tidemark mail reset j --yes");
  });

  it("escapes every API value in HTML and drops non-http links", () => {
    const d = renderDigest({
      subject: "New <books>",
      jobName: "j",
      books: [
        book({
          title: `<script>alert("x")</script>`,
          link: "javascript:alert(1)",
          thumbnail: null,
        }),
      ],
    });
    expect(d.html).not.toContain("<script>");
    expect(d.html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(d.html).not.toContain("javascript:");
    expect(d.html).toContain("<title>New &lt;books&gt;</title>");
  });

  it("cuts long descriptions at a word boundary", () => {
    const d = renderDigest({
      subject: "s",
      jobName: "j",
      books: [book({ description: "word ".repeat(200) })],
    });
    const line = d.text.split("\n").find((l) => l.startsWith("   word"))!;
    expect(line.length).toBeLessThanOrEqual(304);
    expect(line.endsWith("word…")).toBe(true);
  });

  it("plainText strips tags and decodes entities", () => {
    expect(plainText("<p>A&nbsp;&amp;&#39;B&#x41;</p><p>C</p>")).toBe("A &'BA C");
  });
});
