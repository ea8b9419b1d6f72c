import { z } from "zod";
import {
  averageField,
  countField,
  imageListField,
  isRefusal,
  numberField,
  priceField,
  type Refusal,
  tagIdsField,
  textField,
} from "./field-rules.ts";

/*
 * The boundary: Rakuten answers the same field as a number in one API and as a string in
 * another ("itemPrice":"3980" in Ranking, "genreId":"101937" in Item Search), wraps list
 * entries in formatVersion 1 ({"Item":{…}}, {"imageUrl":…}) and omits `Items` when there are no
 * results. These schemas accept every variant and give one shape: formatVersion 2 field names,
 * numbers as numbers, text as text (trimming and empty-to-null are normalization's job). A value
 * of another type, or a number the field cannot hold, is refused with the field's path
 * (field-rules.ts says why). What answer means "no results" is documented per endpoint in
 * docs/pipelines/rakuten.md; any other answer without data is refused, never read as empty.
 */

/** A field read by one of the shared rules; a refused value is an issue naming it. */
function ruled<T>(rule: (v: unknown) => T | Refusal) {
  return z
    .unknown()
    .optional()
    .transform((v, ctx): T => {
      const out = rule(v);
      if (!isRefusal(out)) return out;
      ctx.addIssue({ code: "custom", message: out.message });
      return z.NEVER;
    });
}

/** A number, or numeric text; "", null and absent become null. */
const looseNumber = ruled(numberField);

/** A price: a whole number of yen, 0 or more, or numeric text of one. */
const price = ruled(priceField);

/** A count: a whole number, 0 or more. */
const count = ruled(countField);

/** A review average, 0 to 5. */
const average = ruled(averageField);

/** A whole number that must be there (ids, ranks): digit strings accepted. */
const requiredNumber = z
  .union([
    z.number(),
    z
      .string()
      .trim()
      .regex(/^-?\d+(\.\d+)?$/, "must be a number"),
  ])
  .transform((v) => Number(v))
  .refine(Number.isSafeInteger, "wrong value: must be a whole number within 2^53");

/** Text; numbers become their decimal text, null and absent become null. */
const looseText = ruled(textField);

/** Image list: formatVersion 2 strings or formatVersion 1 `{imageUrl}` objects. */
const imageList = ruled(imageListField);

/** Tag ids: positive integers, as numbers or digit text. */
const tagIdList = ruled(tagIdsField);

/** The item fields the pipeline keeps (Rakuten sends more; they are dropped here). */
const itemFields = {
  itemCode: z.union([z.string(), z.number()]).transform(String),
  itemName: looseText,
  catchcopy: looseText,
  itemCaption: looseText,
  itemPrice: price,
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
  reviewCount: count,
  reviewAverage: average,
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

/** Said of an Item Search answer without items that is not the zero-hit answer. */
export const NO_ITEMS_WITHOUT_ZERO_COUNT =
  "no items, and count is not 0: only a zero-hit answer (count 0, Items [] or absent) means no results";

/**
 * Rakuten's documented zero-hit Item Search answer: `count: 0` and no items (`Items` [] or
 * absent). The only answer that means "no such item"; no items without it is a failure.
 */
export function isZeroHitAnswer(body: {
  count: number | null;
  Items: readonly unknown[];
}): boolean {
  return body.count === 0 && body.Items.length === 0;
}

/**
 * Item Search response (top-level paging fields kept as numbers). An answer without items
 * that is not the zero-hit answer (`{}`, an outage page) is refused at `Items`.
 */
export const itemSearchSchema = z
  .object({
    count: looseNumber,
    page: looseNumber,
    pageCount: looseNumber,
    hits: looseNumber,
    Items: z
      .array(unwrapped("Item", itemSchema))
      .nullish()
      .transform((v): z.output<typeof itemSchema>[] => v ?? []),
  })
  .superRefine((body, ctx) => {
    if (body.Items.length === 0 && !isZeroHitAnswer(body)) {
      ctx.addIssue({ code: "custom", path: ["Items"], message: NO_ITEMS_WITHOUT_ZERO_COUNT });
    }
  });

/** One entry of a ranking: rank + item fields (numbers often arrive as strings here). */
export const rankingItemSchema = z.object({ ...itemFields, rank: requiredNumber });

/** Ranking response: `Items` must be there (a ranking without it is no ranking, not an empty one). */
export const rankingSchema = z.object({
  title: looseText,
  lastBuildDate: looseText,
  Items: z.array(unwrapped("Item", rankingItemSchema), {
    error: "must be a list: a ranking answer without Items holds no ranking",
  }),
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

/** Tag Search response (v1 wraps groups as `{"tagGroup":…}`); `tagGroups` must be there. */
export const tagSearchSchema = z.object({
  tagGroups: z.array(unwrapped("tagGroup", tagGroupSchema), {
    error: "must be a list: a tag answer without tagGroups says nothing about the tag",
  }),
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
