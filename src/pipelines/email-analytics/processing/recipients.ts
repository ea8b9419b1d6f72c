import type { Transaction } from "kysely";
import type { NormalizedEvent } from "../client/types.ts";
import type { EmailAnalyticsTables } from "../tables.ts";
import { chunks } from "./sql-batch.ts";

/** The recipient row an event applies to, as read (and then updated in memory). */
export interface RecipientView {
  id: string;
  email_id: string;
  member_id: string;
  member_email: string;
  delivered_at: string | null;
  opened_at: string | null;
  failed_at: string | null;
}

/** Recipient rows a run keeps in memory at most (about 200 bytes each). */
const MAX_CACHED_RECIPIENTS = 150_000;

/** An email's recipients are read at once when a batch wants at least this many of them… */
const WHOLE_EMAIL_MIN_WANTED = 50;
/** …and it has at most this many. */
const WHOLE_EMAIL_MAX_RECIPIENTS = 50_000;

/** The recipient columns the applier needs, of one email, in id order. */
function selectRecipients(tx: Transaction<EmailAnalyticsTables>, emailId: string) {
  return tx
    .selectFrom("email_recipients")
    .select([
      "id",
      "email_id",
      "member_id",
      "member_email",
      "delivered_at",
      "opened_at",
      "failed_at",
    ])
    .where("email_id", "=", emailId)
    .orderBy("id");
}

/** Map key of a recipient: (email id, member email), Ghost's lookup. */
export function recipientKey(emailId: string, email: string): string {
  return `${emailId}\u0000${email}`;
}

/**
 * Finds the recipient of events as Ghost does: the email from `user-variables['email-id']`,
 * else from the batch whose `provider_id` is the message id (cached for the run), then the
 * `email_recipients` row with that email id and the event's recipient address.
 */
export class RecipientResolver {
  readonly #emailByProvider = new Map<string, string | null>();
  /**
   * Recipients already read in this run, kept current by the applier (only the run holding the
   * lease writes these columns); bounded, then started afresh.
   */
  readonly #cache = new Map<string, { emailId: string; rows: Map<string, RecipientView> }>();
  /** Rows in the cache. */
  #cached = 0;
  /** Emails whose recipients are all in the cache. */
  readonly #wholeEmail = new Set<string>();
  readonly #newsletterByEmail = new Map<string, string | null>();

  /** The email id of each event (undefined when it cannot be found). */
  async emailIds(
    tx: Transaction<EmailAnalyticsTables>,
    events: readonly NormalizedEvent[],
  ): Promise<Array<string | undefined>> {
    const unknown = new Set<string>();
    for (const e of events) {
      if (!e.emailId && e.providerId && !this.#emailByProvider.has(e.providerId)) {
        unknown.add(e.providerId);
      }
    }
    for (const part of chunks([...unknown])) {
      const rows = await tx
        .selectFrom("email_batches")
        .select(["provider_id", "email_id"])
        .where("provider_id", "in", part)
        .execute();
      for (const id of part) this.#emailByProvider.set(id, null);
      for (const r of rows) if (r.provider_id) this.#emailByProvider.set(r.provider_id, r.email_id);
    }
    return events.map(
      (e) =>
        e.emailId ||
        (e.providerId ? (this.#emailByProvider.get(e.providerId) ?? undefined) : undefined),
    );
  }

  /** The recipient rows of the given (email id, address) keys; the first by id on duplicates. */
  async recipients(
    tx: Transaction<EmailAnalyticsTables>,
    wanted: ReadonlyMap<string, Set<string>>,
  ): Promise<Map<string, RecipientView>> {
    const found = new Map<string, RecipientView>();
    if (this.#cached > MAX_CACHED_RECIPIENTS) this.reset();
    for (const [emailId, addresses] of wanted) {
      if (!this.#wholeEmail.has(emailId) && addresses.size >= WHOLE_EMAIL_MIN_WANTED) {
        await this.#loadWholeEmail(tx, emailId);
      }
      const complete = this.#wholeEmail.has(emailId);
      const missing: string[] = [];
      const ofEmail = this.#cache.get(emailId)?.rows;
      for (const address of addresses) {
        const cached = ofEmail?.get(address);
        if (cached) found.set(recipientKey(emailId, address), cached);
        else if (!complete) missing.push(address);
      }
      for (const part of chunks(missing)) {
        const rows = await selectRecipients(tx, emailId)
          .where("member_email", "in", part)
          .execute();
        for (const r of rows) this.#remember(r, found);
      }
    }
    return found;
  }

  /**
   * Reads all of an email's recipients at once (one index range instead of thousands of
   * lookups) when it is small enough to keep; its addresses not found are then not recipients.
   */
  async #loadWholeEmail(tx: Transaction<EmailAnalyticsTables>, emailId: string): Promise<void> {
    const email = await tx
      .selectFrom("emails")
      .select("email_count")
      .where("id", "=", emailId)
      .executeTakeFirst();
    if (!email || email.email_count > WHOLE_EMAIL_MAX_RECIPIENTS) return;
    if (this.#cached + email.email_count > MAX_CACHED_RECIPIENTS) return;
    const rows = await selectRecipients(tx, emailId).execute();
    for (const r of rows) this.#remember(r);
    this.#wholeEmail.add(emailId);
  }

  /** Caches a row read from the database (the first by id wins on duplicates). */
  #remember(r: RecipientView, found?: Map<string, RecipientView>): void {
    let entry = this.#cache.get(r.email_id);
    if (!entry) {
      entry = { emailId: r.email_id, rows: new Map() };
      this.#cache.set(r.email_id, entry);
    }
    if (entry.rows.has(r.member_email)) return;
    // Kept for the run: one email id string shared by its rows, not a copy per row.
    r.email_id = entry.emailId;
    entry.rows.set(r.member_email, r);
    this.#cached += 1;
    found?.set(recipientKey(r.email_id, r.member_email), r);
  }

  /** Forgets the cached recipient rows. */
  reset(): void {
    this.#cache.clear();
    this.#cached = 0;
    this.#wholeEmail.clear();
  }

  /** The newsletter of each email (cached for the run; null when it has none). */
  async newsletters(
    tx: Transaction<EmailAnalyticsTables>,
    emailIds: Iterable<string>,
  ): Promise<Map<string, string | null>> {
    const missing = [...new Set(emailIds)].filter((id) => !this.#newsletterByEmail.has(id));
    for (const part of chunks(missing)) {
      const rows = await tx
        .selectFrom("emails")
        .select(["id", "newsletter_id"])
        .where("id", "in", part)
        .execute();
      for (const id of part) this.#newsletterByEmail.set(id, null);
      for (const r of rows) this.#newsletterByEmail.set(r.id, r.newsletter_id);
    }
    return this.#newsletterByEmail;
  }
}
