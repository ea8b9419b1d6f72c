import { type FakeListing, shownPrice } from "./listing.ts";

const STATUS_UPPER = {
  on_sale: "ITEM_STATUS_ON_SALE",
  trading: "ITEM_STATUS_TRADING",
  sold_out: "ITEM_STATUS_SOLD_OUT",
} as const;

/** The listing's image, on Mercari's image host. */
export function thumbnailOf(l: FakeListing): string {
  return `https://static.mercdn.net/thumb/item/webp/${l.id}_1.jpg?${l.updated}`;
}

/**
 * A search hit as `POST /v2/entities:search` returns it. As in Mercari's recorded answers, a
 * Shops hit names no shop (`sellerId` "0", empty `shopName`, no `shop` object), and a listing
 * without a price carries the placeholder with `isNoPrice`.
 */
export function searchItemJson(l: FakeListing): Record<string, unknown> {
  return {
    id: l.id,
    sellerId: l.shop ? "0" : l.sellerId,
    buyerId: l.status === "on_sale" ? "" : "123456789",
    status: STATUS_UPPER[l.status],
    name: l.name,
    price: String(shownPrice(l)),
    created: String(l.created),
    updated: String(l.updated),
    thumbnails: [thumbnailOf(l)],
    itemType: l.shop ? "ITEM_TYPE_BEYOND" : "ITEM_TYPE_MERCARI",
    itemConditionId: "1",
    shippingPayerId: "2",
    itemSizes: [],
    itemBrand: null,
    itemPromotions: [],
    shopName: "",
    itemSize: null,
    shippingMethodId: "14",
    categoryId: String(l.categoryId),
    isNoPrice: l.noPrice,
    title: "",
    isLiked: false,
    photos: [{ uri: thumbnailOf(l) }],
    auction: null,
  };
}

/** `GET /items/get` for a regular item. */
export function itemDetailJson(l: FakeListing): Record<string, unknown> {
  const sold = l.status !== "on_sale";
  return {
    result: "OK",
    data: {
      id: l.id,
      seller: { id: Number(l.sellerId) || 0, name: `seller ${l.sellerId}`, num_sell_items: 12 },
      status: l.status,
      name: l.name,
      price: shownPrice(l),
      description: l.description,
      photos: [thumbnailOf(l)],
      thumbnails: [thumbnailOf(l)],
      item_category: {
        id: l.categoryId,
        name: "category",
        parent_category_id: 1,
        root_category_id: 1,
      },
      item_condition: { id: 1, name: "新品、未使用" },
      num_likes: 3,
      num_comments: 0,
      is_shop_item: "no",
      created: l.created,
      updated: l.updated,
      ...(sold
        ? {
            buyer: { id: 123456789 },
            transaction_evidence: {
              id: 1,
              status: l.status === "sold_out" ? "done" : "wait_shipping",
            },
          }
        : {}),
    },
    meta: {},
  };
}

/** The Mercari Shops product endpoint's answer. */
export function shopsProductJson(l: FakeListing, now: Date): Record<string, unknown> {
  const iso = (s: number): string => new Date(s * 1000).toISOString();
  const day = 86_400_000;
  return {
    name: l.id,
    displayName: l.name,
    productTags: l.status === "on_sale" ? [] : ["sold_out"],
    thumbnail: thumbnailOf(l),
    attributes: [],
    price: String(shownPrice(l)),
    isNoPrice: l.noPrice,
    // A running time sale: the buyer pays its price, below the list price.
    ...(l.timeSalePrice !== undefined && !l.noPrice
      ? {
          timeSaleDetails: {
            price: String(l.timeSalePrice),
            startTime: new Date(now.getTime() - day).toISOString(),
            endTime: new Date(now.getTime() + 7 * day).toISOString(),
          },
        }
      : {}),
    createTime: iso(l.created),
    updateTime: iso(l.updated),
    productDetail: {
      shop: { id: l.sellerId, name: l.sellerId, displayName: `Shop ${l.sellerId}`, thumbnail: "" },
      photos: [thumbnailOf(l)],
      description: l.description,
      categories: [{ categoryId: String(l.categoryId), displayName: "category" }],
      condition: { displayName: "新品、未使用" },
    },
  };
}

/** Mercari's 404 body for an unknown item. */
export function notFoundJson(): Record<string, unknown> {
  return {
    result: "error",
    errors: [{ code: "RecordNotFoundException", message: "見つかりませんでした" }],
    meta: {},
  };
}

/** A Cloudflare-style block page. */
export const BLOCK_PAGE = `<!DOCTYPE html>
<html lang="en-US"><head><title>Attention Required! | Cloudflare</title></head>
<body><h1>Sorry, you have been blocked</h1>
<p>You are unable to access mercari.jp</p></body></html>
`;
