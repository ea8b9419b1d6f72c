import {
  type ActivityRates,
  type AdvanceReport,
  type CatalogueOptions,
  type CatalogueQuery,
  DEFAULT_RATES,
} from "./catalogue-types.ts";
import {
  type FakeListing,
  type GroupParams,
  type GroupSpec,
  groupParams,
  keywordTokens,
  makeListing,
  normalizeText,
  roundPrice,
} from "./listing.ts";
import { hash32, type Rng, seededRng } from "./rng.ts";
import { SAMPLE_GROUPS } from "./sample-groups.ts";

const DAY_S = 86_400;

/**
 * The fake's listings, deterministic from a seed: keyword groups of listings that, as its
 * clock advances, get listed, change price, sell (trading, then sold out) and are deleted.
 */
export class Catalogue {
  readonly rates: ActivityRates;
  /** Bumped on every change; search results are cached per version. */
  version = 0;
  autoGroups: boolean;
  readonly #seed: number;
  #nowMs: number;
  readonly #byId = new Map<string, FakeListing>();
  /** Every id ever used: a deleted listing's id is never reused. */
  readonly #everIds = new Set<string>();
  readonly #groups = new Map<string, { params: GroupParams; initial: number; rng: Rng }>();
  readonly #activity: Rng;
  #cache: { key: string; version: number; list: FakeListing[] } | undefined;

  constructor(options: CatalogueOptions = {}) {
    this.#seed = options.seed ?? 3;
    const start = options.start ? new Date(options.start) : new Date();
    if (!options.start) start.setUTCMinutes(0, 0, 0);
    this.#nowMs = start.getTime();
    this.rates = { ...DEFAULT_RATES, ...options.rates };
    this.autoGroups = options.autoGroups ?? true;
    this.#activity = seededRng(this.#seed ^ 0x9e3779b9);
    for (const g of options.groups ?? SAMPLE_GROUPS) this.addGroup(g);
  }

  /** The catalogue's current time. */
  now(): Date {
    return new Date(this.#nowMs);
  }

  #nowS(): number {
    return Math.floor(this.#nowMs / 1000);
  }

  #touch(): void {
    this.version++;
  }

  /** Adds a keyword group: `count` listings created over the last 30 days, some already sold. */
  addGroup(spec: GroupSpec): FakeListing[] {
    const key = normalizeText(spec.keyword);
    if (this.#groups.has(key)) throw new Error(`group ${JSON.stringify(spec.keyword)} exists`);
    const params = groupParams(spec);
    const rng = seededRng(hash32(`${this.#seed}:${key}`));
    this.#groups.set(key, { params, initial: spec.count, rng });
    const now = this.#nowS();
    const made: FakeListing[] = [];
    for (let i = 0; i < spec.count; i++) {
      const listing = makeListing(rng, params, now - rng.int(60, 30 * DAY_S), this.#everIds);
      if (rng.chance(params.soldShare)) {
        listing.status = rng.chance(0.1) ? "trading" : "sold_out";
        listing.updated = rng.int(listing.created, now);
      }
      this.#put(listing);
      made.push(listing);
    }
    this.#touch();
    return made;
  }

  /**
   * Lists one new on-sale listing in a keyword's group now (the group is created if needed);
   * its name contains the keyword unless `name` is given.
   */
  list(
    keyword: string,
    fields: Partial<
      Pick<FakeListing, "name" | "price" | "shop" | "categoryId" | "noPrice" | "timeSalePrice">
    > = {},
  ): FakeListing {
    const group = this.#group(keyword);
    const shopShare = fields.shop === undefined ? group.params.shopShare : fields.shop ? 1 : 0;
    const params = { ...group.params, shopShare, descriptionOnlyShare: 0 };
    const listing = makeListing(group.rng, params, this.#nowS(), this.#everIds);
    Object.assign(listing, {
      name: fields.name ?? listing.name,
      price: fields.price ?? listing.price,
      categoryId: fields.categoryId ?? listing.categoryId,
      // A listing made by hand shows its price unless told otherwise.
      noPrice: fields.noPrice ?? false,
      timeSalePrice: fields.timeSalePrice,
    });
    listing.searchText = normalizeText(
      `${listing.name}\n${listing.description}\n${group.params.keyword}`,
    );
    this.#put(listing);
    this.#touch();
    return listing;
  }

  #group(keyword: string) {
    const key = normalizeText(keyword);
    if (!this.#groups.has(key)) this.addGroup({ keyword, count: 0 });
    return this.#groups.get(key)!;
  }

  #put(listing: FakeListing): void {
    this.#byId.set(listing.id, listing);
    this.#everIds.add(listing.id);
  }

  /** A live listing (undefined when unknown or deleted). */
  get(id: string): FakeListing | undefined {
    return this.#byId.get(id);
  }

  /** Every live listing. */
  all(): FakeListing[] {
    return [...this.#byId.values()];
  }

  /** Changes a listing's price now. */
  setPrice(id: string, price: number): void {
    const l = this.#must(id);
    l.price = price;
    l.updated = this.#nowS();
    this.#touch();
  }

  /** Takes a listing's price away (it shows the placeholder) or gives it back. */
  setNoPrice(id: string, noPrice = true): void {
    const l = this.#must(id);
    l.noPrice = noPrice;
    l.updated = this.#nowS();
    this.#touch();
  }

  /** Renames a listing, as its seller may (the search still finds it). */
  rename(id: string, name: string): void {
    const l = this.#must(id);
    l.name = name;
    l.updated = this.#nowS();
    this.#touch();
  }

  /** Sells a listing now (trading, or straight to sold out). */
  sell(id: string, status: "trading" | "sold_out" = "sold_out"): void {
    const l = this.#must(id);
    l.status = status;
    l.updated = this.#nowS();
    this.#touch();
  }

  /** Deletes a listing (search and detail no longer know it). */
  remove(id: string): void {
    this.#must(id);
    this.#byId.delete(id);
    this.#touch();
  }

  #must(id: string): FakeListing {
    const l = this.#byId.get(id);
    if (!l) throw new Error(`no listing ${id}`);
    return l;
  }

  /** Moves the clock forward `ms`, hour by hour, applying the activity rates. */
  advance(ms: number): AdvanceReport {
    const report: AdvanceReport = { listed: 0, repriced: 0, sold: 0, completed: 0, deleted: 0 };
    let left = ms;
    while (left > 0) {
      const step = Math.min(left, 3_600_000);
      this.#step(step, report);
      left -= step;
    }
    this.#touch();
    return report;
  }

  #step(ms: number, report: AdvanceReport): void {
    const rng = this.#activity;
    const from = this.#nowS();
    this.#nowMs += ms;
    const to = this.#nowS();
    const hours = ms / 3_600_000;
    const at = (): number => (to > from ? rng.int(from, to) : to);
    for (const listing of [...this.#byId.values()]) {
      if (listing.status === "trading") {
        if (rng.chance(this.rates.complete * hours)) {
          Object.assign(listing, { status: "sold_out", updated: at() });
          report.completed++;
        }
        continue;
      }
      if (listing.status !== "on_sale") continue;
      if (rng.chance(this.rates.delete * hours)) {
        this.#byId.delete(listing.id);
        report.deleted++;
      } else if (rng.chance(this.rates.sell * hours)) {
        Object.assign(listing, { status: "trading", updated: at() });
        report.sold++;
      } else if (rng.chance(this.rates.reprice * hours)) {
        const price = roundPrice(listing.price * (1 - rng.int(3, 15) / 100));
        Object.assign(listing, { price, updated: at() });
        report.repriced++;
      }
    }
    for (const group of this.#groups.values()) {
      const expected = group.initial * this.rates.listingShare * hours;
      const n = Math.floor(expected) + (rng.chance(expected % 1) ? 1 : 0);
      for (let i = 0; i < n; i++) {
        const listing = makeListing(group.rng, group.params, at(), this.#everIds);
        this.#put(listing);
        report.listed++;
      }
    }
  }

  /** Listings matching a search, in the asked order (cached until the catalogue changes). */
  search(q: CatalogueQuery): FakeListing[] {
    const key = JSON.stringify(q);
    if (this.#cache?.key === key && this.#cache.version === this.version) return this.#cache.list;
    let list = this.#filter(q);
    // Only a keyword never seen gets a group: a known one whose filters match nothing is an
    // empty search (adding its group again would throw, answering 500).
    const known = this.#groups.has(normalizeText(q.keyword));
    if (list.length === 0 && this.autoGroups && !known && keywordTokens(q.keyword).length > 0) {
      const h = hash32(`${this.#seed}:auto:${normalizeText(q.keyword)}`);
      const priceMin = 500 + (h % 20) * 500;
      this.addGroup({
        keyword: q.keyword,
        count: 40 + (h % 361),
        priceMin,
        priceMax: priceMin * 4,
      });
      list = this.#filter(q);
    }
    this.#cache = { key, version: this.version, list };
    return list;
  }

  #filter(q: CatalogueQuery): FakeListing[] {
    const tokens = keywordTokens(q.keyword);
    const excluded = keywordTokens(q.excludeKeyword ?? "");
    const statuses = new Set(q.statuses);
    const cats = new Set(q.categoryIds);
    const list = [...this.#byId.values()].filter(
      (l) =>
        tokens.every((t) => l.searchText.includes(t)) &&
        !excluded.some((t) => normalizeText(l.name).includes(t)) &&
        (statuses.size === 0 || statuses.has(l.status)) &&
        (cats.size === 0 || cats.has(l.categoryId)) &&
        // A listing without a price is in no price range.
        (q.priceMin <= 0 || (!l.noPrice && l.price >= q.priceMin)) &&
        (q.priceMax <= 0 || (!l.noPrice && l.price <= q.priceMax)),
    );
    const dir = q.order === "ORDER_ASC" ? 1 : -1;
    const field = q.sort === "SORT_PRICE" ? "price" : "created";
    return list.sort((a, b) => dir * (a[field] - b[field]) || dir * a.id.localeCompare(b.id));
  }
}
