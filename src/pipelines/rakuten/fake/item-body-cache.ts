import type { FakeCatalogue } from "./catalogue.ts";
import type { FakeAnswer } from "./fake-bodies.ts";

interface Entry {
  revision: number;
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/**
 * Item Search answers for one item code, as UTF-8 bytes, per item number and formatVersion:
 * built once and served until the catalogue changes the item (its revision moves on), so a
 * benchmark's 100,000 calls do not regenerate and serialize the same items again and again.
 */
export class ItemBodyCache {
  readonly #entries = new Map<number, Entry>();

  constructor(private readonly catalogue: FakeCatalogue) {}

  /** The cached answer of item `i` in `version`, or `build()`'s, cached. */
  answer(i: number, version: 1 | 2, build: () => FakeAnswer): FakeAnswer {
    const key = i * 2 + (version - 1);
    const revision = this.catalogue.revision(i);
    let entry = this.#entries.get(key);
    if (entry === undefined || entry.revision !== revision) {
      const built = build();
      const body = typeof built.body === "string" ? Buffer.from(built.body, "utf8") : built.body;
      entry = { revision, status: built.status, headers: built.headers, body };
      this.#entries.set(key, entry);
    }
    return { status: entry.status, headers: { ...entry.headers }, body: entry.body };
  }

  /** Forgets every cached answer. */
  clear(): void {
    this.#entries.clear();
  }
}
