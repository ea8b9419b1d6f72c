import type { MailgunDeliveryStatus } from "../client/types.ts";

/** Every event type the fake can hold (Mailgun's list). */
export const EVENT_TYPES = [
  "accepted",
  "rejected",
  "delivered",
  "failed",
  "opened",
  "clicked",
  "unsubscribed",
  "complained",
  "stored",
] as const;

/** Failure kinds with realistic delivery statuses (see payloads.ts). */
export const FAILURE_KINDS = [
  "bounce",
  "mailbox-full",
  "suppress-bounce",
  "suppress-complaint",
  "suppress-unsubscribe",
  "greylisted",
  "generic-temporary",
  "no-message",
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** Extra fields of one event that the compact columns cannot hold (rare: tests set them). */
export interface EventOverrides {
  id?: string;
  severity?: string;
  reason?: string;
  deliveryStatus?: MailgunDeliveryStatus | null;
  /** Fields written over the item as sent (wrong types, wrong timestamps). */
  raw?: Record<string, unknown>;
}

/** One event as the store keeps it, decoded. */
export interface StoredEvent {
  seq: number;
  type: string;
  /** Epoch seconds (fractional). */
  timestamp: number;
  /** Epoch ms from which the API shows it. */
  visibleAt: number;
  recipient: string;
  emailId: string | undefined;
  messageId: string | undefined;
  tags: readonly string[];
  /** failed: index into FAILURE_KINDS; opened/clicked/delivered: a client/host variant. */
  variant: number;
  overrides: EventOverrides | undefined;
}

/** Interns repeated strings (recipients, ids, tag sets) so each event costs a few integers. */
class StringTable {
  readonly values: string[] = [""];
  readonly #index = new Map<string, number>([["", 0]]);

  /** Index of `value` when interned, else undefined (no side effect). */
  find(value: string): number | undefined {
    return this.#index.get(value);
  }

  /** Index of `value` (0 = absent). */
  intern(value: string | undefined | null): number {
    if (value === undefined || value === null || value === "") return 0;
    let i = this.#index.get(value);
    if (i === undefined) {
      i = this.values.length;
      this.values.push(value);
      this.#index.set(value, i);
    }
    return i;
  }
}

/**
 * The fake's events in columns of typed arrays (about 40 bytes an event, so a million fit in
 * ~40 MB), with an order by (timestamp, insertion) kept incrementally while events arrive in
 * time order and rebuilt once when one arrives out of order.
 */
export class EventStore {
  #cap = 1024;
  #n = 0;
  #ts = new Float64Array(this.#cap);
  #visible = new Float64Array(this.#cap);
  #type = new Uint8Array(this.#cap);
  #variant = new Uint8Array(this.#cap);
  #recipient = new Uint32Array(this.#cap);
  #emailId = new Uint32Array(this.#cap);
  #messageId = new Uint32Array(this.#cap);
  #tags = new Uint16Array(this.#cap);
  #order = new Uint32Array(this.#cap);
  #sorted = true;
  readonly #strings = new StringTable();
  readonly #tagSets: string[][] = [[]];
  readonly #tagSetIndex = new Map<string, number>([["", 0]]);
  readonly #overrides = new Map<number, EventOverrides>();

  /** Events held (visible or not). */
  get size(): number {
    return this.#n;
  }

  /** Appends one event; returns its sequence number. */
  add(e: {
    type: string;
    timestamp: number;
    visibleAt: number;
    recipient: string;
    emailId?: string | null;
    messageId?: string | null;
    tags: readonly string[];
    variant?: number;
    overrides?: EventOverrides;
  }): number {
    const type = EVENT_TYPES.indexOf(e.type as (typeof EVENT_TYPES)[number]);
    if (type < 0) throw new RangeError(`unknown Mailgun event type ${JSON.stringify(e.type)}`);
    if (this.#n === this.#cap) this.#grow();
    const i = this.#n++;
    this.#ts[i] = e.timestamp;
    this.#visible[i] = e.visibleAt;
    this.#type[i] = type;
    this.#variant[i] = e.variant ?? 0;
    this.#recipient[i] = this.#strings.intern(e.recipient);
    this.#emailId[i] = this.#strings.intern(e.emailId);
    this.#messageId[i] = this.#strings.intern(e.messageId);
    this.#tags[i] = this.#tagSet(e.tags);
    if (e.overrides) this.#overrides.set(i, e.overrides);
    if (this.#sorted) {
      const last = i === 0 ? Number.NEGATIVE_INFINITY : this.#ts[this.#order[i - 1] as number];
      if ((last as number) <= e.timestamp) this.#order[i] = i;
      else this.#sorted = false;
    }
    return i;
  }

  /** Forgets every event. */
  clear(): void {
    this.#n = 0;
    this.#sorted = true;
    this.#overrides.clear();
  }

  /** The decoded event `seq`. */
  get(seq: number): StoredEvent {
    return {
      seq,
      type: EVENT_TYPES[this.#type[seq] as number] as string,
      timestamp: this.#ts[seq] as number,
      visibleAt: this.#visible[seq] as number,
      recipient: this.#strings.values[this.#recipient[seq] as number] as string,
      emailId: this.#str(this.#emailId[seq] as number),
      messageId: this.#str(this.#messageId[seq] as number),
      tags: this.#tagSets[this.#tags[seq] as number] as string[],
      variant: this.#variant[seq] as number,
      overrides: this.#overrides.get(seq),
    };
  }

  /** Raw columns for the query's hot loop (read-only by convention). */
  columns(): {
    ts: Float64Array;
    visibleAt: Float64Array;
    type: Uint8Array;
    tags: Uint16Array;
    recipient: Uint32Array;
    variant: Uint8Array;
    order: Uint32Array;
    n: number;
  } {
    this.#ensureSorted();
    return {
      ts: this.#ts,
      visibleAt: this.#visible,
      type: this.#type,
      tags: this.#tags,
      recipient: this.#recipient,
      variant: this.#variant,
      order: this.#order,
      n: this.#n,
    };
  }

  /** Tag list of a tag-set index. */
  tagSet(index: number): readonly string[] {
    return this.#tagSets[index] ?? [];
  }

  /** Index of a recipient string, or undefined when no event names it. */
  recipientIndex(recipient: string): number | undefined {
    const i = this.#strings.find(recipient);
    return i === 0 ? undefined : i;
  }

  #str(i: number): string | undefined {
    return i === 0 ? undefined : this.#strings.values[i];
  }

  #tagSet(tags: readonly string[]): number {
    const key = tags.join("\u0000");
    let i = this.#tagSetIndex.get(key);
    if (i === undefined) {
      i = this.#tagSets.length;
      if (i > 0xffff) throw new RangeError("too many distinct tag sets");
      this.#tagSets.push([...tags]);
      this.#tagSetIndex.set(key, i);
    }
    return i;
  }

  #ensureSorted(): void {
    if (this.#sorted) return;
    const ts = this.#ts;
    const order = this.#order.subarray(0, this.#n);
    for (let i = 0; i < this.#n; i++) order[i] = i;
    order.sort((a, b) => (ts[a] as number) - (ts[b] as number) || a - b);
    this.#sorted = true;
  }

  #grow(): void {
    this.#cap *= 2;
    const grow = <T extends Float64Array | Uint8Array | Uint16Array | Uint32Array>(
      a: T,
      make: (n: number) => T,
    ): T => {
      const b = make(this.#cap);
      b.set(a);
      return b;
    };
    this.#ts = grow(this.#ts, (n) => new Float64Array(n));
    this.#visible = grow(this.#visible, (n) => new Float64Array(n));
    this.#type = grow(this.#type, (n) => new Uint8Array(n));
    this.#variant = grow(this.#variant, (n) => new Uint8Array(n));
    this.#recipient = grow(this.#recipient, (n) => new Uint32Array(n));
    this.#emailId = grow(this.#emailId, (n) => new Uint32Array(n));
    this.#messageId = grow(this.#messageId, (n) => new Uint32Array(n));
    this.#tags = grow(this.#tags, (n) => new Uint16Array(n));
    this.#order = grow(this.#order, (n) => new Uint32Array(n));
  }
}
