import type { ProgressReporter } from "../../infra/logging/progress.ts";

/** One item of the fake source, as its API would answer. */
export interface FakeItem {
  id: string;
  title: string;
  price: number;
  tags: number[];
}

/** What the fake source answers: the payload plus fetch-time metadata the hash must ignore. */
export interface FakePayload extends FakeItem {
  fetched_at: string;
}

/** The normalized document of an item. */
export interface ItemDoc {
  id: string;
  title: string | null;
  price: number;
  tags: number[];
}

/** A fake source with fault knobs, and a record of what the ETL did with it. */
export class FakeCatalogue {
  readonly items = new Map<string, FakeItem>();
  /** Targets the job asks for (default: every item id, in insertion order). */
  targets: string[] | undefined;
  readonly failFetch = new Set<string>();
  readonly malformed = new Set<string>();
  readonly failApply = new Set<string>();
  readonly fetched: string[] = [];
  readonly applies: Array<{ target: string; reason: string }> = [];
  readonly progressTicks: number[] = [];
  progressTotal: number | undefined;
  /** When set, every fetch waits for it (a paused process); `atGate` fires on the first. */
  gate: Promise<void> | undefined;
  atGate: (() => void) | undefined;

  constructor(ids: string[] = []) {
    for (const id of ids) this.set(id);
  }

  set(id: string, patch: Partial<FakeItem> = {}): void {
    const old = this.items.get(id) ?? { id, title: ` Item ${id} `, price: 100, tags: [3, 1, 2] };
    this.items.set(id, { ...old, ...patch });
  }

  targetList(): string[] {
    return this.targets ?? [...this.items.keys()];
  }

  async fetch(target: string): Promise<FakePayload | undefined> {
    this.fetched.push(target);
    if (this.gate) {
      this.atGate?.();
      await this.gate;
    }
    if (this.failFetch.has(target)) throw new Error(`HTTP 503 from the fake source for ${target}`);
    const item = this.items.get(target);
    if (!item) return undefined;
    return { ...item, tags: [...item.tags], fetched_at: new Date().toISOString() };
  }

  normalize(raw: FakePayload): ItemDoc {
    if (this.malformed.has(raw.id)) throw new Error(`malformed payload: price of ${raw.id}`);
    const title = raw.title.trim();
    return {
      id: raw.id,
      title: title === "" ? null : title,
      price: raw.price,
      tags: [...raw.tags].sort(),
    };
  }

  /** A progress reporter that records ticks. */
  progress(total?: number): ProgressReporter {
    this.progressTotal = total;
    return {
      tick: (n = 1) => void this.progressTicks.push(n),
      setTotal: (t) => {
        this.progressTotal = t;
      },
      stop: () => {},
    };
  }
}
