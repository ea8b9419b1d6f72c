import { z } from "zod";

/** A number Mercari may send as a string ("6000") or a number. */
const numeric = z.union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/)]).transform(Number);

/** One item of `POST /v2/entities:search` (only the fields we read; the rest pass). */
export const searchItemSchema = z.looseObject({
  id: z.string().min(1),
  sellerId: z.string().optional(),
  status: z.string(),
  name: z.string(),
  price: numeric,
  /** Unix seconds, as a string. */
  created: numeric,
  updated: numeric,
  thumbnails: z.array(z.string()).optional(),
  itemType: z.string().optional(),
  shopName: z.string().optional(),
  categoryId: numeric.optional(),
  photos: z.array(z.looseObject({ uri: z.string() })).optional(),
  shop: z.looseObject({ id: z.string().optional() }).nullable().optional(),
});

/** The body of `POST /v2/entities:search`. */
export const searchResponseSchema = z.looseObject({
  items: z.array(searchItemSchema).nullable().optional(),
  meta: z
    .looseObject({
      nextPageToken: z.string().nullable().optional(),
      numFound: numeric.optional(),
    })
    .optional(),
});

/** `data` of `GET /items/get`. */
export const itemDetailDataSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  price: numeric,
  status: z.string(),
  /** Unix seconds. */
  created: numeric,
  updated: numeric,
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
  price: numeric,
  thumbnail: z.string().optional(),
  /** ISO-8601. */
  createTime: z.string(),
  updateTime: z.string(),
  productDetail: z
    .looseObject({
      shop: z.looseObject({ name: z.string().optional() }).optional(),
      photos: z.array(z.string()).optional(),
      categories: z.array(z.looseObject({ categoryId: numeric.optional() })).optional(),
    })
    .optional(),
});

export type SearchItemRaw = z.output<typeof searchItemSchema>;
export type SearchResponseRaw = z.output<typeof searchResponseSchema>;
export type ItemDetailRaw = z.output<typeof itemDetailDataSchema>;
export type ShopsProductRaw = z.output<typeof shopsProductSchema>;
