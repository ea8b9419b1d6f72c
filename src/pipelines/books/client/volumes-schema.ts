import { z } from "zod";

// Optional fields fall back to undefined when malformed: one odd volume must not fail a page.
const optText = z.string().optional().catch(undefined);
const optNumber = z.number().optional().catch(undefined);
const optTextList = z.array(z.string()).optional().catch(undefined);

const industryIdentifier = z.object({ type: z.string(), identifier: z.string() });

/** `volumeInfo` fields the pipeline keeps (Google sends many more; they are ignored). */
export const volumeInfoSchema = z.object({
  title: optText,
  subtitle: optText,
  authors: optTextList,
  publisher: optText,
  publishedDate: optText,
  description: optText,
  industryIdentifiers: z.array(industryIdentifier).optional().catch(undefined),
  pageCount: optNumber,
  printType: optText,
  categories: optTextList,
  averageRating: optNumber,
  ratingsCount: optNumber,
  imageLinks: z.object({ smallThumbnail: optText, thumbnail: optText }).optional().catch(undefined),
  language: optText,
  previewLink: optText,
  infoLink: optText,
  canonicalVolumeLink: optText,
});

/** One search result. */
export const volumeSchema = z.object({
  id: z.string().min(1),
  etag: optText,
  volumeInfo: volumeInfoSchema.default({}),
});

/** `GET /books/v1/volumes`: `items` is absent when there are no results or past the end. */
export const volumesResponseSchema = z.object({
  kind: z.literal("books#volumes").optional(),
  totalItems: z.number().int().nonnegative(),
  items: z.array(volumeSchema).optional(),
});

export type Volume = z.output<typeof volumeSchema>;
export type VolumeInfo = z.output<typeof volumeInfoSchema>;
export type VolumesResponse = z.output<typeof volumesResponseSchema>;
