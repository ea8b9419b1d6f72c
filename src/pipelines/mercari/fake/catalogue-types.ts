import type { FakeStatus, GroupSpec } from "./listing.ts";

/** Hourly rates of the catalogue's movement (per group or per listing, as named). */
export interface ActivityRates {
  /** New listings per group per hour, as a share of the group's initial size (default 0.01). */
  listingShare: number;
  /** Chance per on-sale listing per hour that it sells (goes to trading; default 0.02). */
  sell: number;
  /** Chance per on-sale listing per hour of a price change (default 0.03). */
  reprice: number;
  /** Chance per on-sale listing per hour that it is deleted (default 0.005). */
  delete: number;
  /** Chance per trading listing per hour that the deal completes (sold_out; default 0.3). */
  complete: number;
}

/** What one advance did. */
export interface AdvanceReport {
  listed: number;
  repriced: number;
  sold: number;
  completed: number;
  deleted: number;
}

/** Search conditions, as the fake reads them from the request body. */
export interface CatalogueQuery {
  keyword: string;
  /** Words a listing's name must not hold ("" for none). */
  excludeKeyword?: string;
  statuses: readonly FakeStatus[];
  categoryIds: readonly number[];
  /** 0 = no bound. */
  priceMin: number;
  priceMax: number;
  sort: "SORT_CREATED_TIME" | "SORT_PRICE" | "SORT_SCORE" | "SORT_NUM_LIKES";
  order: "ORDER_DESC" | "ORDER_ASC";
}

/** Construction options of the catalogue. */
export interface CatalogueOptions {
  seed?: number;
  /** The catalogue's clock starts here (default: the current hour). */
  start?: Date | string;
  /** Groups created up front (default: a few sample keywords). */
  groups?: readonly GroupSpec[];
  /** A search for an unknown keyword creates a group of 40–400 listings for it (default true). */
  autoGroups?: boolean;
  rates?: Partial<ActivityRates>;
}

export const DEFAULT_RATES: ActivityRates = {
  listingShare: 0.01,
  sell: 0.02,
  reprice: 0.03,
  delete: 0.005,
  complete: 0.3,
};
