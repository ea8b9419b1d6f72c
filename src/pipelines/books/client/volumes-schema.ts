import { z } from "zod";

// Google leaves out the fields a volume lacks, so each kept field may be absent; a field that is
// present with the wrong type (or an impossible value) fails the whole page, naming the field,
// instead of being read as "absent" (docs/pipelines/books.md, "Answers").
const text = z.string().optional();
const textList = z.array(z.string()).optional();
const count = z.number().int().nonnegative().optional();

const industryIdentifier = z.object({ type: z.string(), identifier: z.string() });

/** `volumeInfo` fields the pipeline keeps (Google sends many more; they are ignored). */
export const volumeInfoSchema = z.object({
  title: text,
  subtitle: text,
  authors: textList,
  publisher: text,
  publishedDate: text,
  description: text,
  industryIdentifiers: z.array(industryIdentifier).optional(),
  pageCount: count,
  printType: text,
  categories: textList,
  averageRating: z.number().min(0).max(5).optional(),
  ratingsCount: count,
  imageLinks: z.object({ smallThumbnail: text, thumbnail: text }).optional(),
  language: text,
  previewLink: text,
  infoLink: text,
  canonicalVolumeLink: text,
});

/** One search result: `id` and `volumeInfo` are always sent. */
export const volumeSchema = z.object({
  id: z.string().min(1),
  etag: text,
  volumeInfo: volumeInfoSchema,
});

/**
 * `GET /books/v1/volumes`. `items` is absent when there are no results or `startIndex` is past
 * the end (then `{"kind":"books#volumes","totalItems":0}`, or Google's own total when it stops
 * near 1,000 results); when present it holds at least one volume. Anything else — no `kind`,
 * no `totalItems`, `items: []`, a wrong-typed field in any volume — is a failed request.
 */
export const volumesResponseSchema = z.object({
  kind: z.literal("books#volumes"),
  totalItems: z.number().int().nonnegative(),
  items: z.array(volumeSchema).min(1).optional(),
});

export type Volume = z.output<typeof volumeSchema>;
export type VolumeInfo = z.output<typeof volumeInfoSchema>;
export type VolumesResponse = z.output<typeof volumesResponseSchema>;

/**
 * The source's documented empty answer: a valid page without `items` (no results, or past the
 * end). Only this ends a query as "exhausted" on an empty page.
 */
export function isEmptyAnswer(page: VolumesResponse): boolean {
  return page.items === undefined;
}
