import type { MercariItemStatus, SearchQuery } from "./types.ts";

const STATUS_NAMES: Record<MercariItemStatus, string> = {
  on_sale: "STATUS_ON_SALE",
  sold_out: "STATUS_SOLD_OUT",
  trading: "STATUS_TRADING",
};

/** The body of `POST /v2/entities:search` as Mercari's web client sends it, newest first. */
export function buildSearchBody(
  query: SearchQuery,
  defaultPageSize: number,
  searchSessionId: string,
): Record<string, unknown> {
  return {
    userId: "",
    pageSize: query.pageSize ?? defaultPageSize,
    pageToken: query.pageToken ?? "",
    searchSessionId,
    indexRouting: "INDEX_ROUTING_UNSPECIFIED",
    searchCondition: {
      keyword: query.keyword,
      excludeKeyword: query.excludeKeyword ?? "",
      sort: "SORT_CREATED_TIME",
      order: "ORDER_DESC",
      status: (query.status ?? []).map((s) => STATUS_NAMES[s]),
      categoryId: query.categoryId == null ? [] : [query.categoryId],
      brandId: [],
      sellerId: [],
      // Mercari leaves an unset bound at 0.
      priceMin: query.priceMin ?? 0,
      priceMax: query.priceMax ?? 0,
      itemConditionId: [],
      shippingPayerId: [],
      shippingFromArea: [],
      shippingMethod: [],
      colorId: [],
      hasCoupon: false,
      attributes: [],
      itemTypes: [],
      skuIds: [],
    },
    defaultDatasets: ["DATASET_TYPE_MERCARI", "DATASET_TYPE_BEYOND"],
    serviceFrom: "suruga",
    withItemBrand: true,
    withItemSize: false,
    withItemPromotions: true,
    withItemSizes: true,
    withShopname: true,
  };
}
