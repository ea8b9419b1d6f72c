import { contentHash } from "tidemark/kit";
import type { Volume } from "./volumes-schema.ts";

/** The fields of a volume the pipeline stores, before bookkeeping columns. */
export interface BookFields {
  volume_id: string;
  title: string;
  subtitle: string | null;
  authors: string[];
  publisher: string | null;
  /** As Google gives it: `1894`, `2002-02` or `2022-08-23`. */
  published_date: string | null;
  /** YYYYMMDD as a number, `00` for missing parts (`2002-02` → 20020200); 0 when unknown. */
  published_sort: number;
  description: string | null;
  isbn13: string | null;
  isbn10: string | null;
  page_count: number | null;
  categories: string[];
  average_rating: number | null;
  ratings_count: number | null;
  language: string | null;
  print_type: string | null;
  thumbnail: string | null;
  info_link: string | null;
  canonical_link: string | null;
}

/** A book ready to upsert, with the hash that tells whether it changed. */
export interface NormalizedBook extends BookFields {
  /** Content hash of the normalised fields: unchanged volumes are not rewritten. */
  content_hash: string;
}

const DATE = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?/;

/**
 * A sortable number for Google's partial dates: `1894` → 18940000, `2002-02` → 20020200,
 * `2022-08-23` → 20220823; 0 when unparseable (sorts last). Numbers need no collation.
 */
export function publishedSortKey(date: string | undefined): number {
  const m = date ? DATE.exec(date) : null;
  if (!m) return 0;
  return Number(`${m[1]}${m[2] ?? "00"}${m[3] ?? "00"}`);
}

/** Digits only; `X` kept as the ISBN-10 check digit. */
function cleanIsbn(value: string): string {
  return value.replace(/[^0-9Xx]/g, "").toUpperCase();
}

function blankToNull(value: string | undefined): string | null {
  const v = value?.trim();
  return v ? v : null;
}

/** Google serves thumbnails over http; mail clients block mixed content. */
function httpsUrl(url: string | undefined): string | null {
  const v = blankToNull(url);
  return v ? v.replace(/^http:\/\//i, "https://") : null;
}

/** Maps a search result to the stored book (ISBN-13 kept; ISBN-10 too when given). */
export function normalizeVolume(volume: Volume): NormalizedBook {
  const info = volume.volumeInfo;
  const ids = info.industryIdentifiers ?? [];
  const isbn13 = ids.find((i) => i.type === "ISBN_13");
  const isbn10 = ids.find((i) => i.type === "ISBN_10");
  const fields: BookFields = {
    volume_id: volume.id,
    title: blankToNull(info.title) ?? "(untitled)",
    subtitle: blankToNull(info.subtitle),
    authors: (info.authors ?? []).map((a) => a.trim()).filter((a) => a !== ""),
    publisher: blankToNull(info.publisher),
    published_date: blankToNull(info.publishedDate),
    published_sort: publishedSortKey(info.publishedDate),
    description: blankToNull(info.description),
    isbn13: isbn13 ? cleanIsbn(isbn13.identifier) : null,
    isbn10: isbn10 ? cleanIsbn(isbn10.identifier) : null,
    page_count: info.pageCount ?? null,
    categories: info.categories ?? [],
    average_rating: info.averageRating ?? null,
    ratings_count: info.ratingsCount ?? null,
    language: blankToNull(info.language),
    print_type: blankToNull(info.printType),
    thumbnail: httpsUrl(info.imageLinks?.thumbnail ?? info.imageLinks?.smallThumbnail),
    info_link: httpsUrl(info.infoLink),
    canonical_link: httpsUrl(info.canonicalVolumeLink),
  };
  return { ...fields, content_hash: contentHash(fields) };
}
