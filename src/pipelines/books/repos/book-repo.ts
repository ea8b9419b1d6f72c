import type { Kysely } from "kysely";
import { chunks } from "tidemark/kit";
import type { NormalizedBook } from "../client/normalize-volume.ts";
import type { BooksTables, VolumeRow } from "../tables.ts";

/** A collected book and the query that found it. */
export interface FoundBook {
  book: NormalizedBook;
  query: string;
}

/** What an upsert changed. */
export interface UpsertCounts {
  /** Distinct volumes in the input (duplicates across pages and queries collapsed). */
  unique: number;
  inserted: number;
  updated: number;
  unchanged: number;
  /** Volumes this job had not seen before. */
  newForJob: number;
}

// Rows per statement: well under SQLite's bound-parameter limit for 22 columns.
const CHUNK = 200;

function toRow(book: NormalizedBook, now: string): VolumeRow {
  return {
    ...book,
    authors: JSON.stringify(book.authors),
    categories: JSON.stringify(book.categories),
    first_seen_at: now,
    updated_at: now,
  };
}

/**
 * Books keyed by Google volume id, and the job ↔ volume links a job's digests select from.
 * Idempotent: a volume whose content hash did not change is not rewritten.
 */
export class BookRepo {
  constructor(private readonly db: Kysely<BooksTables>) {}

  /** Upserts the books and links them to the job; the first occurrence of a volume wins. */
  async upsertForJob(
    found: readonly FoundBook[],
    job: { jobName: string; runId: string; now: string },
  ): Promise<UpsertCounts> {
    const unique = new Map<string, FoundBook>();
    for (const f of found) if (!unique.has(f.book.volume_id)) unique.set(f.book.volume_id, f);
    const ids = [...unique.keys()];
    const counts: UpsertCounts = {
      unique: ids.length,
      inserted: 0,
      updated: 0,
      unchanged: 0,
      newForJob: 0,
    };
    if (ids.length === 0) return counts;

    const known = new Map<string, string>();
    const linked = new Set<string>();
    for (const part of chunks(ids, 500)) {
      const rows = await this.db
        .selectFrom("books.volume")
        .select(["volume_id", "content_hash"])
        .where("volume_id", "in", part)
        .execute();
      for (const r of rows) known.set(r.volume_id, r.content_hash);
      const links = await this.db
        .selectFrom("books.job_volume")
        .select("volume_id")
        .where("job_name", "=", job.jobName)
        .where("volume_id", "in", part)
        .execute();
      for (const l of links) linked.add(l.volume_id);
    }

    const writes: VolumeRow[] = [];
    for (const { book } of unique.values()) {
      const hash = known.get(book.volume_id);
      if (hash === undefined) counts.inserted++;
      else if (hash !== book.content_hash) counts.updated++;
      else {
        counts.unchanged++;
        continue;
      }
      writes.push(toRow(book, job.now));
    }
    for (const part of chunks(writes, CHUNK)) {
      await this.db
        .insertInto("books.volume")
        .values(part)
        .onConflict((oc) =>
          // Every column but the key and first_seen_at takes the incoming value.
          oc.column("volume_id").doUpdateSet((eb) => ({
            title: eb.ref("excluded.title"),
            subtitle: eb.ref("excluded.subtitle"),
            authors: eb.ref("excluded.authors"),
            publisher: eb.ref("excluded.publisher"),
            published_date: eb.ref("excluded.published_date"),
            published_sort: eb.ref("excluded.published_sort"),
            description: eb.ref("excluded.description"),
            isbn13: eb.ref("excluded.isbn13"),
            isbn10: eb.ref("excluded.isbn10"),
            page_count: eb.ref("excluded.page_count"),
            categories: eb.ref("excluded.categories"),
            average_rating: eb.ref("excluded.average_rating"),
            ratings_count: eb.ref("excluded.ratings_count"),
            language: eb.ref("excluded.language"),
            print_type: eb.ref("excluded.print_type"),
            thumbnail: eb.ref("excluded.thumbnail"),
            info_link: eb.ref("excluded.info_link"),
            canonical_link: eb.ref("excluded.canonical_link"),
            content_hash: eb.ref("excluded.content_hash"),
            updated_at: eb.ref("excluded.updated_at"),
          })),
        )
        .execute();
    }

    const links = [...unique.values()]
      .map((f, rank) => ({ f, rank }))
      .filter(({ f }) => !linked.has(f.book.volume_id))
      .map(({ f, rank }) => ({
        job_name: job.jobName,
        volume_id: f.book.volume_id,
        query: f.query,
        first_seen_at: job.now,
        first_run_id: job.runId,
        collect_rank: rank,
      }));
    counts.newForJob = links.length;
    for (const part of chunks(links, CHUNK)) {
      await this.db
        .insertInto("books.job_volume")
        .values(part)
        .onConflict((oc) => oc.columns(["job_name", "volume_id"]).doNothing())
        .execute();
    }
    return counts;
  }

  /** How many volumes the job has collected so far. */
  async countForJob(jobName: string): Promise<number> {
    const row = await this.db
      .selectFrom("books.job_volume")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("job_name", "=", jobName)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** How many books are known, over every job. */
  async countAll(): Promise<number> {
    const row = await this.db
      .selectFrom("books.volume")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
