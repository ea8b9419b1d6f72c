import {
  type ItemDetailRaw,
  NO_PRICE_PLACEHOLDER,
  type SearchItemRaw,
  type ShopsProductRaw,
} from "./schemas.ts";
import { itemPageUrl, type MercariItem, type MercariItemStatus } from "./types.ts";

/** Maps `ITEM_STATUS_ON_SALE` or `on_sale` (and the other two) to our status; null otherwise. */
export function normalizeStatus(raw: string): MercariItemStatus | null {
  const s = raw.toLowerCase().replace(/^item_status_/, "");
  return s === "on_sale" || s === "sold_out" || s === "trading" ? s : null;
}

/** Unix seconds → ISO-8601 UTC. */
export function unixToIso(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

/** A date text the schema checked parses → ISO-8601 UTC. */
function isoOf(text: string): string {
  return new Date(Date.parse(text)).toISOString();
}

/**
 * The price a listing shows, or null when it shows none: a no-price flag, or Mercari's
 * placeholder price. A placeholder is never a price observation.
 */
export function shownPrice(price: number, ...noPriceFlags: Array<boolean | null | undefined>) {
  if (noPriceFlags.some((f) => f === true) || price === NO_PRICE_PLACEHOLDER) return null;
  return Math.round(price);
}

/**
 * A seller or shop id, or null: Mercari sends `"0"` (and "") where it names no seller (every
 * Shops hit in search), which is no id — taken as one, every shop would merge into one seller.
 */
export function sellerIdOf(raw: string | number | null | undefined): string | null {
  if (raw === null || raw === undefined) return null;
  const id = String(raw).trim();
  return id === "" || id === "0" ? null : id;
}

/** A search hit → MercariItem; null for a status we do not track (stopped, cancelled). */
export function normalizeSearchItem(raw: SearchItemRaw): MercariItem | null {
  const status = normalizeStatus(raw.status);
  if (status === null) return null;
  const isShop =
    raw.itemType === "ITEM_TYPE_BEYOND" || (raw.shopName ?? "") !== "" || Boolean(raw.shop);
  return {
    id: raw.id,
    name: raw.name,
    price: shownPrice(raw.price, raw.isNoPrice),
    status,
    sellerType: isShop ? "shop" : "user",
    // A Shops hit names its shop only in a `shop` object, which search usually leaves out; its
    // `sellerId` is "0" then. The detail crawl fills the shop in.
    sellerId: isShop ? sellerIdOf(raw.shop?.id) : sellerIdOf(raw.sellerId),
    thumbnailUrl: raw.thumbnails?.[0] ?? raw.photos?.[0]?.uri ?? "",
    url: itemPageUrl(raw.id),
    created: unixToIso(raw.created),
    updated: unixToIso(raw.updated),
    categoryId: raw.categoryId ?? null,
  };
}

/** `data` of an item detail → MercariItem; null for a status we do not track. */
export function normalizeItemDetail(raw: ItemDetailRaw): MercariItem | null {
  const status = normalizeStatus(raw.status);
  if (status === null) return null;
  return {
    id: raw.id,
    name: raw.name,
    price: shownPrice(raw.price, raw.is_no_price, raw.isNoPrice),
    status,
    sellerType: "user",
    sellerId: sellerIdOf(raw.seller?.id),
    thumbnailUrl: raw.thumbnails?.[0] ?? raw.photos?.[0] ?? "",
    url: itemPageUrl(raw.id),
    created: unixToIso(raw.created),
    updated: unixToIso(raw.updated),
    categoryId: raw.item_category?.id ?? null,
  };
}

/**
 * The price a buyer pays for a Shops product now: a running time sale's price (its start and
 * end, when given, around `now`), otherwise the list price.
 */
export function shopsPriceNow(
  raw: ShopsProductRaw,
  now: Date,
): { price: number; saleUntil: string | null } {
  const sale = raw.timeSaleDetails;
  const list = { price: raw.price, saleUntil: null };
  if (!sale) return list;
  const t = now.getTime();
  if (sale.startTime && Date.parse(sale.startTime) > t) return list;
  if (sale.endTime && Date.parse(sale.endTime) <= t) return list;
  return { price: sale.price, saleUntil: sale.endTime ? isoOf(sale.endTime) : null };
}

/** A Shops product → MercariItem: tagged `sold_out` means sold, otherwise on sale. */
export function normalizeShopsProduct(
  id: string,
  raw: ShopsProductRaw,
  now: Date = new Date(),
): MercariItem {
  const sold = (raw.productTags ?? []).includes("sold_out");
  const shop = raw.productDetail?.shop;
  const pays = shopsPriceNow(raw, now);
  const price = shownPrice(pays.price, raw.isNoPrice);
  return {
    id,
    name: raw.displayName,
    price,
    timeSaleUntil: price === null ? null : pays.saleUntil,
    status: sold ? "sold_out" : "on_sale",
    sellerType: "shop",
    sellerId: sellerIdOf(shop?.id) ?? sellerIdOf(shop?.name),
    thumbnailUrl: raw.thumbnail ?? raw.productDetail?.photos?.[0] ?? "",
    url: itemPageUrl(id),
    created: isoOf(raw.createTime),
    updated: isoOf(raw.updateTime),
    categoryId: raw.productDetail?.categories?.[0]?.categoryId ?? null,
  };
}
