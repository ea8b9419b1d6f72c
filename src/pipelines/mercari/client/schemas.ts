import { z } from "zod";

/** A number Mercari may send as a string ("6000") or a number. */
const numeric = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/)]).transform(Number);

/** The largest price a row can hold: `price` is an integer column (int4 on Postgres). */
export const MAX_PRICE = 2_147_483_647;

/**
 * A price in whole yen, as a number or a string. A negative, fractional or oversized price is
 * refused here: stored, it would fail the whole batch's upsert on Postgres (out of range).
 */
const yen = numeric.refine((n) => Number.isInteger(n) && n >= 0 && n <= MAX_PRICE, {
  message: `expected whole yen from 0 to ${MAX_PRICE}`,
});

/**
 * Mercari's placeholder for "no price" (`"price": "9999999"` with `"isNoPrice": true`; sellers
 * also use it for "not for sale"). Never a price observation: see docs/pipelines/mercari.md.
 */
export const NO_PRICE_PLACEHOLDER = 9_999_999;

/** A no-price flag as Mercari spells it in search hits (`isNoPrice`) or detail (`is_no_price`). */
const flag = z.boolean().nullable().optional();

/** Unix seconds a Date can hold (a wild value would make toISOString throw later). */
const unixSeconds = numeric.refine((n) => Number.isFinite(new Date(n * 1000).getTime()), {
  message: "expected unix seconds",
});

/** A date-time text Date understands (stored after conversion to ISO-8601 UTC). */
const isoTime = z.string().refine((t) => !Number.isNaN(Date.parse(t)), {
  message: "expected an ISO-8601 time",
});

/** One item of `POST /v2/entities:search` (only the fields we read; the rest pass). */
export const searchItemSchema = z.looseObject({
  id: z.string().min(1),
  sellerId: z.string().optional(),
  status: z.string(),
  name: z.string(),
  price: yen,
  /** true: `price` is the placeholder, the listing shows no price. */
  isNoPrice: flag,
  /** Unix seconds, as a string. */
  created: unixSeconds,
  updated: unixSeconds,
  thumbnails: z.array(z.string()).optional(),
  itemType: z.string().optional(),
  shopName: z.string().optional(),
  categoryId: numeric.optional(),
  photos: z.array(z.looseObject({ uri: z.string() })).optional(),
  shop: z
    .looseObject({ id: z.string().optional(), name: z.string().optional() })
    .nullable()
    .optional(),
});

/**
 * The body of `POST /v2/entities:search`. Items are checked one by one by the client (one odd
 * hit must not fail its page); `meta` is required: a body without it (`{}`, an error object) is
 * no search answer, and taking it for an empty last page would end the crawl early.
 */
export const searchResponseSchema = z.looseObject({
  items: z.array(z.unknown()).nullable().optional(),
  meta: z.looseObject({
    nextPageToken: z.string().nullable().optional(),
    numFound: numeric.optional(),
  }),
});

/** `data` of `GET /items/get`. */
export const itemDetailDataSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  price: yen,
  is_no_price: flag,
  isNoPrice: flag,
  status: z.string(),
  /** Unix seconds. */
  created: unixSeconds,
  updated: unixSeconds,
  seller: z.looseObject({ id: z.union([z.number(), z.string()]) }).optional(),
  photos: z.array(z.string()).optional(),
  thumbnails: z.array(z.string()).optional(),
  item_category: z.looseObject({ id: numeric }).optional(),
});

/** The body of `GET /items/get` (a 200 answer). */
export const itemDetailResponseSchema = z.looseObject({
  result: z.string(),
  data: itemDetailDataSchema.optional(),
  errors: z.array(z.looseObject({ code: z.string() })).optional(),
});

/** The body of the Mercari Shops product endpoint. */
export const shopsProductSchema = z.looseObject({
  name: z.string().min(1),
  displayName: z.string(),
  productTags: z.array(z.string()).nullable().optional(),
  price: yen,
  isNoPrice: flag,
  /** A time sale: `price` is what a buyer pays while it runs (between its start and end). */
  timeSaleDetails: z
    .looseObject({
      price: yen,
      startTime: isoTime.nullable().optional(),
      endTime: isoTime.nullable().optional(),
    })
    .nullable()
    .optional(),
  thumbnail: z.string().optional(),
  /** ISO-8601: refused otherwise, as the sold date is read from updateTime and compared as text. */
  createTime: isoTime,
  updateTime: isoTime,
  productDetail: z
    .looseObject({
      shop: z
        .looseObject({ id: z.string().optional(), name: z.string().optional() })
        .nullable()
        .optional(),
      photos: z.array(z.string()).optional(),
      categories: z.array(z.looseObject({ categoryId: numeric.optional() })).optional(),
    })
    .optional(),
});

export type SearchItemRaw = z.output<typeof searchItemSchema>;
export type SearchResponseRaw = z.output<typeof searchResponseSchema>;
export type ItemDetailRaw = z.output<typeof itemDetailDataSchema>;
export type ShopsProductRaw = z.output<typeof shopsProductSchema>;
