import { z } from "zod";

/*
 * The boundary: Rakuten answers the same field as a number in one API and as a string in
 * another ("itemPrice":"3980" in Ranking, "genreId":"101937" in Item Search), wraps list
 * entries in formatVersion 1 ({"Item":{…}}, {"imageUrl":…}) and omits `Items` when there are no
 * results. These schemas accept every variant and give one shape: formatVersion 2 field names,
 * numbers as numbers, text as text (trimming and empty-to-null are normalization's job).
 */

/** A number, or a numeric string; "" and null become null; anything else is null too. */
const looseNumber = z
  .union([z.number(), z.string(), z.null()])
  .optional()
  .transform((v): number | null => {
    if (v === undefined || v === null) return null;
    if (typeof v === "number") return Number.isFinite(v) ? v : null;
    const t = v.trim();
    if (t === "") return null;
    const n = Number(t);
    return Number.isFinite(n) ? n : null;
  })
  .catch(null);

/** A number that must be there (ids, ranks): numeric strings accepted. */
const requiredNumber = z
  .union([
    z.number(),
    z
      .string()
      .trim()
      .regex(/^-?\d+(\.\d+)?$/, "must be a number"),
  ])
  .transform((v) => Number(v))
  .refine(Number.isFinite, "must be a finite number");

/** Text; numbers become their decimal text, null and absent become null. */
const looseText = z
  .union([z.string(), z.number(), z.null()])
  .optional()
  .transform((v): string | null => (v === undefined || v === null ? null : String(v)))
  .catch(null);

/** Image list: formatVersion 2 strings or formatVersion 1 `{imageUrl}` objects. */
const imageList = z
  .array(z.union([z.string(), z.object({ imageUrl: z.string() }).transform((o) => o.imageUrl)]))
  .nullish()
  .transform((v): string[] => v ?? [])
  .catch([]);

/** Tag ids: numbers or numeric strings; anything unusable is dropped. */
const tagIdList = z
  .array(z.union([z.number(), z.string()]))
  .nullish()
  .transform((v): number[] =>
    (v ?? []).map((x) => Number(x)).filter((n) => Number.isInteger(n) && n > 0),
  )
  .catch([]);

/** The item fields the pipeline keeps (Rakuten sends more; they are dropped here). */
const itemFields = {
  itemCode: z.union([z.string(), z.number()]).transform(String),
  itemName: looseText,
  catchcopy: looseText,
  itemCaption: looseText,
  itemPrice: looseNumber,
  itemUrl: looseText,
  affiliateUrl: looseText,
  affiliateRate: looseNumber,
  imageFlag: looseNumber,
  smallImageUrls: imageList,
  mediumImageUrls: imageList,
  availability: looseNumber,
  taxFlag: looseNumber,
  postageFlag: looseNumber,
  creditCardFlag: looseNumber,
  shopOfTheYearFlag: looseNumber,
  giftFlag: looseNumber,
  startTime: looseText,
  endTime: looseText,
  reviewCount: looseNumber,
  reviewAverage: looseNumber,
  pointRate: looseNumber,
  pointRateStartTime: looseText,
  pointRateEndTime: looseText,
  shopName: looseText,
  shopCode: looseText,
  shopUrl: looseText,
  genreId: looseNumber,
  tagIds: tagIdList,
};

/** One item of Item Search, either format. */
export const itemSchema = z.object(itemFields);

/** Unwraps formatVersion 1's `{"Item":{…}}` (any single-key wrapper named `key`). */
function unwrapped<S extends z.ZodType>(key: string, inner: S) {
  return z.preprocess((v) => {
    if (v !== null && typeof v === "object" && key in v) {
      const keys = Object.keys(v);
      if (keys.length === 1) return (v as Record<string, unknown>)[key];
    }
    return v;
  }, inner);
}

/** `Items` absent, null or [] all mean no results. */
function itemList<S extends z.ZodType>(inner: S) {
  return z
    .array(unwrapped("Item", inner))
    .nullish()
    .transform((v): z.output<S>[] => v ?? []);
}

/** Item Search response (top-level paging fields kept as numbers). */
export const itemSearchSchema = z.object({
  count: looseNumber,
  page: looseNumber,
  pageCount: looseNumber,
  hits: looseNumber,
  Items: itemList(itemSchema),
});

/** One entry of a ranking: rank + item fields (numbers often arrive as strings here). */
export const rankingItemSchema = z.object({ ...itemFields, rank: requiredNumber });

/** Ranking response. */
export const rankingSchema = z.object({
  title: looseText,
  lastBuildDate: looseText,
  Items: itemList(rankingItemSchema),
});

/** A genre in a path, a child list or `current`. */
export const genreRefSchema = z.object({
  genreId: requiredNumber,
  genreName: looseText,
  genreLevel: looseNumber.transform((n) => n ?? 0),
});

function genreList(wrapper: string) {
  return z
    .array(unwrapped(wrapper, genreRefSchema))
    .nullish()
    .transform((v) => v ?? []);
}

/** Genre Search response (v1 wraps list entries as `{"child":…}`, `{"parent":…}`, `{"brother":…}`). */
export const genreSearchSchema = z.object({
  current: genreRefSchema,
  parents: genreList("parent"),
  brothers: genreList("brother"),
  children: genreList("child"),
});

/** One tag. */
export const tagSchema = z.object({
  tagId: requiredNumber,
  tagName: looseText,
  parentTagId: looseNumber.transform((n) => n ?? 0),
});

/** One tag group with its tags (v1 wraps tags as `{"tag":…}`). */
export const tagGroupSchema = z.object({
  tagGroupId: requiredNumber,
  tagGroupName: looseText,
  tags: z
    .array(unwrapped("tag", tagSchema))
    .nullish()
    .transform((v) => v ?? []),
});

/** Tag Search response (v1 wraps groups as `{"tagGroup":…}`). */
export const tagSearchSchema = z.object({
  tagGroups: z
    .array(unwrapped("tagGroup", tagGroupSchema))
    .nullish()
    .transform((v) => v ?? []),
});

/** Either error body: old host `{error, error_description}`, new host `{errors:{errorCode, errorMessage}}`. */
export const errorBodySchema = z.union([
  z.object({
    errors: z.object({
      errorCode: z.union([z.number(), z.string()]).optional(),
      errorMessage: z.string().optional(),
    }),
  }),
  z.object({ error: z.string(), error_description: z.string().optional() }),
]);

export type RakutenItemPayload = z.output<typeof itemSchema>;
export type RakutenRankingItemPayload = z.output<typeof rankingItemSchema>;
export type RakutenGenreRefPayload = z.output<typeof genreRefSchema>;
export type RakutenTagGroupPayload = z.output<typeof tagGroupSchema>;
