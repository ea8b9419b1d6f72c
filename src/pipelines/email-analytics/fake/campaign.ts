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
  const rand = seededRandom(options.seed ?? 1);
  const hours = options.engagementHours ?? 48;
  const lateFraction = options.lateFraction ?? 0.02;
  const [lateMin, lateMax] = options.lateDelayMs ?? [2 * 60_000, 20 * 60_000];
  const res = options.timestampResolution ?? 0.000001;
  const round = (t: number): number => Math.round(t / res) * res;
  const withIds = options.includeEmailId ?? true;
  const byType: Record<string, number> = {};
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let events = 0;

  const add = (
    type: string,
    ts: number,
    emailIndex: number,
    recipientIndex: number,
    variant = 0,
    noIds = false,
  ): void => {
    const email = options.emails[emailIndex];
    const recipient = email?.recipients[recipientIndex];
    if (!email || !recipient) return;
    const timestamp = round(ts);
    const late = rand() < lateFraction;
    const delay = late ? lateMin + rand() * (lateMax - lateMin) : rand() * 2000;
    target.store.add({
      type,
      timestamp,
      // Late against the event's own time, as on Mailgun: a campaign generated days after it
      // happened has all its events in storage, so a backfill of those days misses none.
      visibleAt: timestamp * 1000 + delay,
      recipient: recipient.email,
      emailId: noIds || !withIds ? undefined : email.id,
      messageId: noIds ? undefined : recipient.providerId,
      tags: target.defaultTags,
      variant,
    });
    byType[type] = (byType[type] ?? 0) + 1;
    events++;
    if (timestamp < first) first = timestamp;
    if (timestamp > last) last = timestamp;
  };
  const engagementAt = (from: number): number =>
    from + Math.min(hours * 3600, -Math.log(1 - rand()) * ((hours * 3600) / 6));

  const openers: Opener[] = [];
  const expectations: CampaignEmailExpectation[] = [];
  options.emails.forEach((email, e) => {
    const exp = { emailId: email.id, delivered: 0, opened: 0, failed: 0 };
    expectations.push(exp);
    const sent = email.sentAt.getTime() / 1000;
    email.recipients.forEach((_r, r) => {
      const t0 = sent + rand() * 300;
      let roll = rand();
      const permanent: [number, FailureKind][] = [
        [rates.bounce, "bounce"],
        [rates.suppressedBounce, "suppress-bounce"],
        [rates.suppressedComplaint, "suppress-complaint"],
      ];
      for (const [p, kind] of permanent) {
        if (roll < p) {
          add("failed", t0 + rand() * 5, e, r, FAILURE_KINDS.indexOf(kind));
          exp.failed++;
          return;
        }
        roll -= p;
      }
      let delivered = t0 + 0.5 + rand() * 20;
      if (rand() < rates.temporaryFailure) {
        const kind = TEMPORARY[Math.floor(rand() * TEMPORARY.length)] as FailureKind;
        add("failed", t0 + 1, e, r, FAILURE_KINDS.indexOf(kind));
        delivered = t0 + 600 + rand() * 1200;
      }
      add("delivered", delivered, e, r, Math.floor(rand() * 3));
      exp.delivered++;
      if ((email.trackOpens ?? true) && rand() < rates.opened) {
        const at = engagementAt(delivered);
        add("opened", at, e, r, Math.floor(rand() * 3));
        openers.push({ email: e, recipient: r, firstOpen: at });
        exp.opened++;
      }
      if (rand() < rates.clicked) add("clicked", engagementAt(delivered), e, r, 0);
      if (rand() < rates.unsubscribed) add("unsubscribed", engagementAt(delivered), e, r, 0);
      if (rand() < rates.complained) add("complained", engagementAt(delivered), e, r, 0);
      if (rand() < rates.noIds) add("opened", engagementAt(delivered), e, r, 0, true);
    });
  });

  const extra = Math.max(0, (options.targetEvents ?? 0) - events);
  const clickShare = options.clickShare ?? 0.1;
  for (let i = 0; i < extra && openers.length > 0; i++) {
    const o = openers[Math.floor(rand() * openers.length)] as Opener;
    add(
      rand() < clickShare ? "clicked" : "opened",
      engagementAt(o.firstOpen),
      o.email,
      o.recipient,
      i,
    );
  }
  return {
    events,
    byType,
    first: events === 0 ? 0 : first,
    last: events === 0 ? 0 : last,
    expectations,
  };
}
