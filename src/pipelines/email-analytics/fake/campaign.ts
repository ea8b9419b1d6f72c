import type { EventStore, FailureKind } from "./event-store.ts";
import { FAILURE_KINDS } from "./event-store.ts";
import type {
  CampaignEmailExpectation,
  CampaignOptions,
  CampaignRates,
  CampaignSummary,
} from "./fake-types.ts";

/** Rates of a typical newsletter send (Mailgun/Ghost ballpark figures). */
export const DEFAULT_RATES: CampaignRates = {
  bounce: 0.01,
  suppressedBounce: 0.004,
  suppressedComplaint: 0.001,
  temporaryFailure: 0.01,
  opened: 0.45,
  clicked: 0.08,
  unsubscribed: 0.003,
  complained: 0.0005,
  noIds: 0.001,
};

const TEMPORARY: FailureKind[] = ["mailbox-full", "greylisted", "generic-temporary"];

/** mulberry32: a small seeded PRNG, so a seed always gives the same campaign. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An opener, for repeat opens: where and when its first open was. */
interface Opener {
  email: number;
  recipient: number;
  firstOpen: number;
}

/** Writes events into the store and keeps the campaign's counts. */
class CampaignWriter {
  readonly rand: () => number;
  readonly byType: Record<string, number> = {};
  first = Number.POSITIVE_INFINITY;
  last = Number.NEGATIVE_INFINITY;
  events = 0;
  readonly #hours: number;
  readonly #lateFraction: number;
  readonly #late: readonly [number, number];
  readonly #resolution: number;
  readonly #withIds: boolean;

  constructor(
    private readonly options: CampaignOptions,
    private readonly target: { store: EventStore; defaultTags: readonly string[] },
  ) {
    this.rand = seededRandom(options.seed ?? 1);
    this.#hours = options.engagementHours ?? 48;
    this.#lateFraction = options.lateFraction ?? 0.02;
    this.#late = options.lateDelayMs ?? [2 * 60_000, 20 * 60_000];
    this.#resolution = options.timestampResolution ?? 0.000001;
    this.#withIds = options.includeEmailId ?? true;
  }

  add(
    type: string,
    ts: number,
    emailIndex: number,
    recipientIndex: number,
    variant = 0,
    noIds = false,
  ): void {
    const email = this.options.emails[emailIndex];
    const recipient = email?.recipients[recipientIndex];
    if (!email || !recipient) return;
    const timestamp = Math.round(ts / this.#resolution) * this.#resolution;
    const late = this.rand() < this.#lateFraction;
    const [lateMin, lateMax] = this.#late;
    const delay = late ? lateMin + this.rand() * (lateMax - lateMin) : this.rand() * 2000;
    this.target.store.add({
      type,
      timestamp,
      // Late against the event's own time, as on Mailgun: a campaign generated days after it
      // happened has all its events in storage, so a backfill of those days misses none.
      visibleAt: timestamp * 1000 + delay,
      recipient: recipient.email,
      emailId: noIds || !this.#withIds ? undefined : email.id,
      messageId: noIds ? undefined : recipient.providerId,
      tags: this.target.defaultTags,
      variant,
    });
    this.byType[type] = (this.byType[type] ?? 0) + 1;
    this.events++;
    if (timestamp < this.first) this.first = timestamp;
    if (timestamp > this.last) this.last = timestamp;
  }

  /** When an engagement after `from` happens: mostly early, with a long tail. */
  engagementAt(from: number): number {
    const window = this.#hours * 3600;
    return from + Math.min(window, -Math.log(1 - this.rand()) * (window / 6));
  }
}

/** One recipient's events: a permanent failure, or a delivery and what the reader did. */
function recipientEvents(
  w: CampaignWriter,
  rates: CampaignRates,
  at: { email: number; recipient: number; sent: number; trackOpens: boolean },
  exp: CampaignEmailExpectation,
  openers: Opener[],
): void {
  const { rand } = w;
  const { email: e, recipient: r } = at;
  const t0 = at.sent + rand() * 300;
  let roll = rand();
  const permanent: [number, FailureKind][] = [
    [rates.bounce, "bounce"],
    [rates.suppressedBounce, "suppress-bounce"],
    [rates.suppressedComplaint, "suppress-complaint"],
  ];
  for (const [p, kind] of permanent) {
    if (roll < p) {
      w.add("failed", t0 + rand() * 5, e, r, FAILURE_KINDS.indexOf(kind));
      exp.failed++;
      return;
    }
    roll -= p;
  }
  let delivered = t0 + 0.5 + rand() * 20;
  if (rand() < rates.temporaryFailure) {
    const kind = TEMPORARY[Math.floor(rand() * TEMPORARY.length)] as FailureKind;
    w.add("failed", t0 + 1, e, r, FAILURE_KINDS.indexOf(kind));
    delivered = t0 + 600 + rand() * 1200;
  }
  w.add("delivered", delivered, e, r, Math.floor(rand() * 3));
  exp.delivered++;
  if (at.trackOpens && rand() < rates.opened) {
    const when = w.engagementAt(delivered);
    w.add("opened", when, e, r, Math.floor(rand() * 3));
    openers.push({ email: e, recipient: r, firstOpen: when });
    exp.opened++;
  }
  if (rand() < rates.clicked) w.add("clicked", w.engagementAt(delivered), e, r, 0);
  if (rand() < rates.unsubscribed) w.add("unsubscribed", w.engagementAt(delivered), e, r, 0);
  if (rand() < rates.complained) w.add("complained", w.engagementAt(delivered), e, r, 0);
  if (rand() < rates.noIds) w.add("opened", w.engagementAt(delivered), e, r, 0, true);
}

/**
 * Adds a realistic campaign to the store: per recipient a delivery (or a permanent bounce or
 * suppression, sometimes after a temporary failure), opens spread over the engagement window
 * with a long tail, clicks, a few unsubscribes and complaints, a few events without ids, some
 * arriving late; then repeat opens and clicks up to `targetEvents`. Writes straight into the
 * store's columns (a million events take about a second).
 */
export function generateCampaign(
  options: CampaignOptions,
  target: { store: EventStore; defaultTags: readonly string[] },
): CampaignSummary {
  const rates = { ...DEFAULT_RATES, ...options.rates };
  const w = new CampaignWriter(options, target);
  const openers: Opener[] = [];
  const expectations: CampaignEmailExpectation[] = [];
  options.emails.forEach((email, e) => {
    const exp = { emailId: email.id, delivered: 0, opened: 0, failed: 0 };
    expectations.push(exp);
    const sent = email.sentAt.getTime() / 1000;
    const trackOpens = email.trackOpens ?? true;
    email.recipients.forEach((_r, r) => {
      recipientEvents(w, rates, { email: e, recipient: r, sent, trackOpens }, exp, openers);
    });
  });

  const extra = Math.max(0, (options.targetEvents ?? 0) - w.events);
  const clickShare = options.clickShare ?? 0.1;
  for (let i = 0; i < extra && openers.length > 0; i++) {
    const o = openers[Math.floor(w.rand() * openers.length)] as Opener;
    const type = w.rand() < clickShare ? "clicked" : "opened";
    w.add(type, w.engagementAt(o.firstOpen), o.email, o.recipient, i);
  }
  const { events, byType, first, last } = w;
  return {
    events,
    byType,
    first: events === 0 ? 0 : first,
    last: events === 0 ? 0 : last,
    expectations,
  };
}
