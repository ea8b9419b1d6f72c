import type { Transaction } from "kysely";
import type { NormalizedEvent } from "../../client/types.ts";
import { EventProcessingResult } from "../../repos/event-result.ts";
import type { FetchRepos } from "../../repos/fetch-repos.ts";
import { objectId } from "../../repos/sql-batch.ts";
import type { EmailAnalyticsTables } from "../../tables.ts";
import { FailureUpserts } from "./failures.ts";
import { lastSeenAfterOpen, loadLastSeen } from "./last-seen.ts";
import {
  DELIVERED,
  FAILED,
  markRecipient,
  OPENED,
  RecipientResolver,
  type RecipientView,
} from "./recipients.ts";

/** The event types with an effect; any other type counts as `unhandled`. */
const HANDLED = new Set(["delivered", "opened", "failed", "unsubscribed", "complained"]);

/** Bounce codes that put an address on the suppression list (605 suppressed, 607 spam). */
const SUPPRESSING_CODES = new Set([605, 607]);

/** What a batch changes, gathered in event order before anything is written. */
interface PendingWrites {
  delivered: Map<string, string>;
  opened: Map<string, string>;
  failed: Map<string, string>;
  lastSeen: Map<string, string>;
  /** newsletter id → member ids to remove from it. */
  unsubscribe: Map<string, Set<string>>;
  complaints: Map<string, EmailAnalyticsTables["email_spam_complaint_events"]>;
  suppressions: Map<string, EmailAnalyticsTables["suppressions"]>;
  disable: Set<string>;
}

/**
 * Applies Mailgun events as Ghost's EmailEventProcessor and EmailEventStorage do, in batches:
 * a handful of reads for the whole batch, the effects worked out in event order in memory
 * (so the outcome equals Ghost's one-event-at-a-time processing), then one statement per kind
 * of change and chunk of rows. Runs inside the caller's (fenced) transaction.
 */
export class EventApplier {
  readonly #resolver: RecipientResolver;
  /** Members' `last_seen_at` as read and then written by this run (bounded). */
  #lastSeen = new Map<string, number | null>();

  /** `repos`: the run's repositories (the applier lives as long as the run). */
  constructor(private readonly repos: FetchRepos) {
    this.#resolver = new RecipientResolver(repos.recipients, repos.emails);
  }

  /** Forgets what the applier remembers of recipients and members. */
  reset(): void {
    this.#resolver.reset();
    this.#lastSeen = new Map();
  }

  /** Applies `events` (ascending) through `tx`; returns the counters and touched ids. */
  async apply(
    tx: Transaction<EmailAnalyticsTables>,
    events: readonly NormalizedEvent[],
  ): Promise<EventProcessingResult> {
    const result = new EventProcessingResult();
    const emailIds = await this.#resolver.emailIds(tx, events);
    const wanted = new Map<string, Set<string>>();
    events.forEach((e, i) => {
      const emailId = emailIds[i];
      if (!HANDLED.has(e.type) || !emailId || !e.recipientEmail) return;
      const set = wanted.get(emailId) ?? new Set<string>();
      set.add(e.recipientEmail);
      wanted.set(emailId, set);
    });
    const recipients = await this.#resolver.recipients(tx, wanted);
    // Each event's recipient, looked up once (undefined: unhandled type or none found).
    const recipientOf = events.map((e, i) => {
      const emailId = emailIds[i];
      if (!HANDLED.has(e.type) || !emailId || !e.recipientEmail) return undefined;
      return recipients.get(emailId)?.get(e.recipientEmail);
    });

    const byType = (type: string) =>
      events.flatMap((e, i) => (e.type === type ? [recipientOf[i]] : [])).filter((r) => !!r);
    const failures = new FailureUpserts(this.repos.failures);
    await failures.load(
      tx,
      byType("failed").map((r) => r.id),
    );
    if (this.#lastSeen.size > 250_000) this.#lastSeen = new Map();
    const lastSeen = await loadLastSeen(
      this.repos.members,
      tx,
      byType("opened").map((r) => r.member_id),
      this.#lastSeen,
    );
    const newsletters = await this.#resolver.newsletters(
      tx,
      byType("unsubscribed").map((r) => r.email_id),
    );

    const pending: PendingWrites = {
      delivered: new Map(),
      opened: new Map(),
      failed: new Map(),
      lastSeen: new Map(),
      unsubscribe: new Map(),
      complaints: new Map(),
      suppressions: new Map(),
      disable: new Set(),
    };
    events.forEach((event, i) => {
      if (!HANDLED.has(event.type)) {
        result.counts.unhandled += 1;
        return;
      }
      const recipient = recipientOf[i];
      if (!recipient) {
        result.counts.unprocessable += 1;
        return;
      }
      this.#effect(event, recipient, { pending, failures, lastSeen, newsletters, result });
      result.emailIds.add(recipient.email_id);
      result.memberIds.add(recipient.member_id);
    });
    try {
      await this.#write(tx, pending, failures);
    } catch (err) {
      // The transaction rolls back: what memory holds may now be ahead of the database.
      this.reset();
      throw err;
    }
    result.failuresWithoutDetails = failures.missingError;
    return result;
  }

  /** Works out one event's effect on the in-memory view and the pending writes. */
  #effect(
    event: NormalizedEvent,
    r: RecipientView,
    s: {
      pending: PendingWrites;
      failures: FailureUpserts;
      lastSeen: Map<string, number | null>;
      newsletters: Map<string, string | null>;
      result: EventProcessingResult;
    },
  ): void {
    const { pending, result } = s;
    // Most events change nothing (repeated opens): the ISO string is built only when written.
    const at = () => event.timestamp.toISOString();
    switch (event.type) {
      case "delivered":
        if (markRecipient(r, DELIVERED)) pending.delivered.set(r.id, at());
        result.counts.delivered += 1;
        return;
      case "opened": {
        if (markRecipient(r, OPENED)) {
          pending.opened.set(r.id, at());
          result.openedMembers.add(r.member_id);
        }
        const next = lastSeenAfterOpen(
          s.lastSeen.get(r.member_id) ?? null,
          event.timestamp.getTime(),
        );
        if (next !== undefined) {
          s.lastSeen.set(r.member_id, next);
          pending.lastSeen.set(r.member_id, event.timestamp.toISOString());
        }
        result.counts.opened += 1;
        return;
      }
      case "failed":
        if (event.severity === "permanent") {
          if (markRecipient(r, FAILED)) pending.failed.set(r.id, at());
          s.failures.apply("permanent", event, r);
          if (event.error && SUPPRESSING_CODES.has(Number(event.error.code))) {
            this.#suppress(pending, event, r, "bounce");
          }
          result.counts.permanentFailed += 1;
        } else {
          s.failures.apply("temporary", event, r);
          result.counts.temporaryFailed += 1;
        }
        return;
      case "unsubscribed": {
        const newsletterId = s.newsletters.get(r.email_id);
        if (newsletterId) {
          const members = pending.unsubscribe.get(newsletterId) ?? new Set<string>();
          members.add(r.member_id);
          pending.unsubscribe.set(newsletterId, members);
        }
        result.counts.unsubscribed += 1;
        return;
      }
      case "complained": {
        const key = `${r.email_id}\u0000${r.member_id}`;
        if (!pending.complaints.has(key)) {
          pending.complaints.set(key, {
            id: objectId(),
            member_id: r.member_id,
            email_id: r.email_id,
            email_address: event.recipientEmail ?? r.member_email,
            created_at: at(),
          });
        }
        this.#suppress(pending, event, r, "spam");
        result.counts.complained += 1;
        return;
      }
    }
  }

  /** Puts the address on the suppression list (first reason wins) and disables the member's email. */
  #suppress(
    pending: PendingWrites,
    event: NormalizedEvent,
    r: RecipientView,
    reason: "bounce" | "spam",
  ): void {
    const email = event.recipientEmail ?? r.member_email;
    if (!pending.suppressions.has(email)) {
      pending.suppressions.set(email, {
        id: objectId(),
        email,
        email_id: r.email_id,
        reason,
        created_at: event.timestamp.toISOString(),
      });
    }
    pending.disable.add(r.member_id);
  }

  /** Writes the batch's changes: a statement per kind of change and chunk of rows. */
  async #write(
    tx: Transaction<EmailAnalyticsTables>,
    p: PendingWrites,
    failures: FailureUpserts,
  ): Promise<void> {
    const { recipients, members, suppressions } = this.repos;
    await recipients.setTimestamps(tx, "delivered_at", p.delivered);
    await recipients.setTimestamps(tx, "opened_at", p.opened);
    await recipients.setTimestamps(tx, "failed_at", p.failed);
    await members.setLastSeen(tx, p.lastSeen);
    await failures.write(tx);
    for (const [newsletterId, ids] of p.unsubscribe)
      await members.unsubscribe(tx, newsletterId, ids);
    await suppressions.addComplaints(tx, [...p.complaints.values()]);
    await suppressions.suppress(tx, [...p.suppressions.values()]);
    await members.disableEmail(tx, p.disable);
  }
}
