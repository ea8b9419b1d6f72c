import { type Kysely, sql } from "kysely";
import type { BooksRunParams } from "../params.ts";
import type { BooksTables } from "../tables.ts";

/** A book as the digest shows it. */
export interface DigestBook {
  volumeId: string;
  title: string;
  subtitle: string | null;
  authors: string[];
  publisher: string | null;
  publishedDate: string | null;
  description: string | null;
  isbn13: string | null;
  pageCount: number | null;
  averageRating: number | null;
  ratingsCount: number | null;
  thumbnail: string | null;
  link: string | null;
}

/**
 * The job's `count` best books not yet mailed to it. Orders (documented in docs/pipelines/books.md):
 * - `newest`: books with a description first, then latest published date (`2022-08-23` before
 *   `2022-08` before `2022`; unknown dates last);
 * - `rating`: highest average rating, then most ratings, then as `newest`.
 * Ties go to the book collected first. Every sort key is a number or an ISO timestamp, so
 * SQLite and Postgres (whatever its collation) return the same order.
 */
export async function selectBooks(
  db: Kysely<BooksTables>,
  jobName: string,
  select: BooksRunParams["select"],
): Promise<DigestBook[]> {
  const hasDescription = sql<number>`case when v.description is null then 0 else 1 end`;
  let q = db
    .selectFrom("books.job_volume as jv")
    .innerJoin("books.volume as v", "v.volume_id", "jv.volume_id")
    .selectAll("v")
    .where("jv.job_name", "=", jobName)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("books.mail_history as mh")
            .select(sql.lit(1).as("one"))
            .whereRef("mh.job_name", "=", "jv.job_name")
            .whereRef("mh.volume_id", "=", "jv.volume_id"),
        ),
      ),
    );
  if (select.order === "rating") {
    q = q
      .orderBy(sql`coalesce(v.average_rating, -1)`, "desc")
      .orderBy(sql`coalesce(v.ratings_count, 0)`, "desc");
  }
  const rows = await q
    .orderBy(hasDescription, "desc")
    .orderBy("v.published_sort", "desc")
    .orderBy("jv.first_seen_at", "asc")
    .orderBy("jv.collect_rank", "asc")
    .limit(select.count)
    .execute();
  return rows.map((r) => ({
    volumeId: r.volume_id,
    title: r.title,
    subtitle: r.subtitle,
    authors: JSON.parse(r.authors) as string[],
    publisher: r.publisher,
    publishedDate: r.published_date,
    description: r.description,
    isbn13: r.isbn13,
    pageCount: r.page_count,
    averageRating: r.average_rating,
    ratingsCount: r.ratings_count,
    thumbnail: r.thumbnail,
    link: r.canonical_link ?? r.info_link,
  }));
}
