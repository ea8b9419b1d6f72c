import type { ItemDetailRaw, SearchItemRaw, ShopsProductRaw } from "./schemas.ts";
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

/** A search hit → MercariItem; null for a status we do not track (stopped, cancelled). */
export function normalizeSearchItem(raw: SearchItemRaw): MercariItem | null {
  const status = normalizeStatus(raw.status);
  if (status === null) return null;
  const isShop =
    raw.itemType === "ITEM_TYPE_BEYOND" || (raw.shopName ?? "") !== "" || Boolean(raw.shop);
  return {
    id: raw.id,
    name: raw.name,
    price: Math.round(raw.price),
    status,
    sellerType: isShop ? "shop" : "user",
    sellerId: (isShop ? raw.shop?.id : undefined) ?? raw.sellerId ?? null,
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
    price: Math.round(raw.price),
    status,
    sellerType: "user",
    sellerId: raw.seller ? String(raw.seller.id) : null,
    thumbnailUrl: raw.thumbnails?.[0] ?? raw.photos?.[0] ?? "",
    url: itemPageUrl(raw.id),
    created: unixToIso(raw.created),
    updated: unixToIso(raw.updated),
    categoryId: raw.item_category?.id ?? null,
  };
}

/** A Shops product → MercariItem: tagged `sold_out` means sold, otherwise on sale. */
export function normalizeShopsProduct(id: string, raw: ShopsProductRaw): MercariItem {
  const sold = (raw.productTags ?? []).includes("sold_out");
  return {
    id,
    name: raw.displayName,
    price: Math.round(raw.price),
    status: sold ? "sold_out" : "on_sale",
    sellerType: "shop",
    sellerId: raw.productDetail?.shop?.name ?? null,
    thumbnailUrl: raw.thumbnail ?? raw.productDetail?.photos?.[0] ?? "",
    url: itemPageUrl(id),
    created: isoOf(raw.createTime),
    updated: isoOf(raw.updateTime),
    categoryId: raw.productDetail?.categories?.[0]?.categoryId ?? null,
  };
}
