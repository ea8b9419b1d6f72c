import {
  GENRE_TREE,
  type LeafGenreSpec,
  SHOP_CODE_PARTS,
  SHOP_KINDS,
  SHOP_PLACES,
  SHOP_SUFFIXES,
  TAG_GROUPS,
} from "./catalogue-data.ts";
import {
  type FakeGenre,
  type FakeItem,
  type FakeShop,
  generateItem,
  ITEM_BASE,
  MAX_CATALOGUE_SIZE,
  mix,
  pick,
  rng,
} from "./generate-item.ts";

export type { FakeGenre, FakeItem, FakeShop };
export { MAX_CATALOGUE_SIZE };

/**
 * A deterministic Japanese gift catalogue: the same seed and size give the same genres, shops
 * and items. Items are computed on demand from their number (so 100,000 items cost no memory);
 * what tests change (price, reviews, image order, removal) is kept as overrides.
 */
export class FakeCatalogue {
  readonly seed: number;
  readonly size: number;
  readonly genres = new Map<number, FakeGenre>();
  readonly shops: FakeShop[] = [];
  readonly #leaves: LeafGenreSpec[] = [];
  readonly #overrides = new Map<number, Partial<FakeItem>>();
  readonly #removed = new Set<number>();
  readonly #genreNames = new Map<number, string>();
  readonly #tagNames = new Map<number, string>();
  #byLeaf: number[][] | undefined;
  /** Bumped by every change, so cached rankings are rebuilt. */
  #version = 0;
  #rankingCache = new Map<number, { version: number; items: number[] }>();
  /** Changes per item number, so an item's cached answer is rebuilt only when it changed. */
  readonly #revisions = new Map<number, number>();

  constructor(options: { seed?: number; size?: number } = {}) {
    this.seed = options.seed ?? 15;
    const size = options.size ?? 300;
    if (!Number.isInteger(size) || size < 1 || size > MAX_CATALOGUE_SIZE) {
      throw new RangeError(`catalogue size must be 1..${MAX_CATALOGUE_SIZE}, got ${size}`);
    }
    this.size = size;
    this.genres.set(0, { genreId: 0, genreName: "", genreLevel: 0, parentId: undefined });
    for (const top of GENRE_TREE) {
      this.genres.set(top.id, { genreId: top.id, genreName: top.name, genreLevel: 1, parentId: 0 });
      for (const leaf of top.leaves) {
        this.genres.set(leaf.id, {
          genreId: leaf.id,
          genreName: leaf.name,
          genreLevel: 2,
          parentId: top.id,
        });
        this.#leaves.push(leaf);
      }
    }
    const r = rng(mix(this.seed, 0xc0ffee));
    const shopCount = Math.max(8, Math.ceil(size / 40));
    const used = new Set<string>();
    for (let s = 0; s < shopCount; s++) {
      let code = `${pick(r, SHOP_CODE_PARTS)}-${pick(r, SHOP_CODE_PARTS)}`;
      if (used.has(code)) code = `${code}-${s}`;
      used.add(code);
      const name = `${pick(r, SHOP_PLACES)}${pick(r, SHOP_KINDS)}${pick(r, SHOP_SUFFIXES)}`;
      this.shops.push({ code, name });
    }
  }

  /** Item number of a code, or undefined when the code names no item of this catalogue. */
  indexOf(itemCode: string): number | undefined {
    const colon = itemCode.indexOf(":");
    if (colon < 0) return undefined;
    const n = Number(itemCode.slice(colon + 1));
    const i = n - ITEM_BASE;
    if (!Number.isInteger(i) || i < 0 || i >= this.size) return undefined;
    return this.#shopOf(i).code === itemCode.slice(0, colon) ? i : undefined;
  }

  /** Code of item number `i`. */
  codeAt(i: number): string {
    return `${this.#shopOf(i).code}:${ITEM_BASE + i}`;
  }

  /** Every item code still listed, in item-number order (`limit` caps the list). */
  itemCodes(limit = this.size): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.size && out.length < limit; i++) {
      if (!this.#removed.has(i)) out.push(this.codeAt(i));
    }
    return out;
  }

  /** The item as the API would show it now, or undefined when unknown or removed. */
  item(itemCode: string): FakeItem | undefined {
    const i = this.indexOf(itemCode);
    return i === undefined || this.#removed.has(i) ? undefined : this.#itemAt(i);
  }

  /** How many times item number `i` changed (fields, removal, restore): a cache key. */
  revision(i: number): number {
    return this.#revisions.get(i) ?? 0;
  }

  /** Whether item number `i` is listed now (not removed). */
  isListed(i: number): boolean {
    return i >= 0 && i < this.size && !this.#removed.has(i);
  }

  #bump(i: number): void {
    this.#revisions.set(i, this.revision(i) + 1);
    this.#version++;
  }

  /** Whether the catalogue ever had the code (removed items included). */
  has(itemCode: string): boolean {
    return this.indexOf(itemCode) !== undefined;
  }

  #leafIndexOf(i: number): number {
    return Math.floor(rng(mix(this.seed, i))() * this.#leaves.length);
  }

  #shopOf(i: number): FakeShop {
    const r = rng(mix(this.seed, i));
    r();
    return pick(r, this.shops);
  }

  #itemAt(i: number): FakeItem {
    const base = generateItem(this.seed, i, this.#leaves, this.shops);
    const override = this.#overrides.get(i);
    return override ? { ...base, ...override } : base;
  }

  /** Genre name, after any rename. */
  genreName(genreId: number): string | undefined {
    return this.#genreNames.get(genreId) ?? this.genres.get(genreId)?.genreName;
  }

  /** Tag groups holding the given tag ids (tags filtered to those ids), in catalogue order. */
  tagGroups(tagIds: readonly number[]) {
    const wanted = new Set(tagIds);
    return TAG_GROUPS.map((g) => ({
      tagGroupId: g.id,
      tagGroupName: g.name,
      tags: g.tags
        .filter(([id]) => wanted.has(id))
        .map(([id, name]) => ({
          tagId: id,
          tagName: this.#tagNames.get(id) ?? name,
          parentTagId: 0,
        })),
    })).filter((g) => g.tags.length > 0);
  }

  /** Item numbers ranked in a genre (0 = all; a top genre covers its leaves), best first. */
  rankedIndexes(genreId: number): number[] {
    const cached = this.#rankingCache.get(genreId);
    if (cached && cached.version === this.#version) return cached.items;
    const leaves = new Set<number>();
    this.#leaves.forEach((leaf, k) => {
      if (genreId === 0 || leaf.id === genreId || this.genres.get(leaf.id)?.parentId === genreId) {
        leaves.add(k);
      }
    });
    const byLeaf = this.#leafLists();
    const candidates: number[] = [];
    for (const k of leaves) for (const i of byLeaf[k] ?? []) candidates.push(i);
    const score = (i: number): number => {
      const it = this.#itemAt(i);
      return it.reviewCount * 10 + it.reviewAverage * 7 - i / 1e6;
    };
    const scored = candidates.filter((i) => !this.#removed.has(i)).map((i) => [score(i), i]);
    scored.sort((a, b) => (b[0] as number) - (a[0] as number));
    const items = scored.slice(0, 30 * 34).map((s) => s[1] as number);
    this.#rankingCache.set(genreId, { version: this.#version, items });
    return items;
  }

  /** Items of a leaf genre or all leaves of a top genre, in item-number order. */
  genreItemIndexes(genreId: number): number[] {
    const byLeaf = this.#leafLists();
    const out: number[] = [];
    this.#leaves.forEach((leaf, k) => {
      if (leaf.id === genreId || this.genres.get(leaf.id)?.parentId === genreId || genreId === 0) {
        for (const i of byLeaf[k] ?? []) if (!this.#removed.has(i)) out.push(i);
      }
    });
    return out.sort((a, b) => a - b);
  }

  /** The item at number `i` (removed ones included: callers filter). */
  itemAt(i: number): FakeItem {
    return this.#itemAt(i);
  }

  #leafLists(): number[][] {
    if (this.#byLeaf) return this.#byLeaf;
    const lists: number[][] = this.#leaves.map(() => []);
    for (let i = 0; i < this.size; i++) lists[this.#leafIndexOf(i)]?.push(i);
    this.#byLeaf = lists;
    return lists;
  }

  // --- Changes (tests and the demo) ---

  #change(itemCode: string, patch: (item: FakeItem) => Partial<FakeItem>): FakeItem {
    const i = this.indexOf(itemCode);
    if (i === undefined || this.#removed.has(i)) throw new Error(`no item ${itemCode} in the fake`);
    const next = { ...this.#overrides.get(i), ...patch(this.#itemAt(i)) };
    this.#overrides.set(i, next);
    this.#bump(i);
    return this.#itemAt(i);
  }

  /** Sets an item's price (a real change). */
  setPrice(itemCode: string, price: number): FakeItem {
    return this.#change(itemCode, () => ({ itemPrice: price }));
  }

  /** Adds one review with `rating` (1–5): count + 1, average recomputed. */
  addReview(itemCode: string, rating: number): FakeItem {
    return this.#change(itemCode, (it) => {
      const count = it.reviewCount + 1;
      const avg = (it.reviewAverage * it.reviewCount + rating) / count;
      return { reviewCount: count, reviewAverage: Math.round(avg * 100) / 100 };
    });
  }

  /** Reverses the order of an item's images (not a change of content). */
  reorderImages(itemCode: string): FakeItem {
    return this.#change(itemCode, (it) => ({
      smallImageUrls: [...it.smallImageUrls].reverse(),
      mediumImageUrls: [...it.mediumImageUrls].reverse(),
    }));
  }

  /** Any field changes (e.g. a new name). */
  patchItem(itemCode: string, patch: Partial<Omit<FakeItem, "itemCode">>): FakeItem {
    return this.#change(itemCode, () => patch);
  }

  /** Takes an item off Rakuten: Item Search answers 0 items, rankings skip it. */
  removeItem(itemCode: string): void {
    const i = this.indexOf(itemCode);
    if (i === undefined) throw new Error(`no item ${itemCode} in the fake`);
    this.#removed.add(i);
    this.#bump(i);
  }

  /** Puts a removed item back. */
  restoreItem(itemCode: string): void {
    const i = this.indexOf(itemCode);
    if (i !== undefined && this.#removed.delete(i)) this.#bump(i);
  }

  /** Renames a genre. */
  renameGenre(genreId: number, name: string): void {
    if (!this.genres.has(genreId)) throw new Error(`no genre ${genreId} in the fake`);
    this.#genreNames.set(genreId, name);
  }

  /** Renames a tag. */
  renameTag(tagId: number, name: string): void {
    this.#tagNames.set(tagId, name);
  }

  /** Raises the price of `count` items spread over the catalogue by 10 yen; returns their codes. */
  changePrices(count: number): string[] {
    const codes = this.itemCodes();
    const step = Math.max(1, Math.floor(codes.length / Math.max(1, count)));
    const out: string[] = [];
    for (let k = 0; k < codes.length && out.length < count; k += step) {
      const code = codes[k] as string;
      const item = this.item(code);
      if (item) {
        this.setPrice(code, item.itemPrice + 10);
        out.push(code);
      }
    }
    return out;
  }
}
