import type { Transaction } from "kysely";
import type { NormalizedEvent } from "../../client/types.ts";
import type { EmailsRepo } from "../../repos/emails-repo.ts";
import type { RecipientRow, RecipientsRepo } from "../../repos/recipients-repo.ts";
import type { EmailAnalyticsTables } from "../../tables.ts";

/** `email_recipients` timestamps the applier sets once: a bit each in a recipient's `state`. */
export const DELIVERED = 1;
export const OPENED = 2;
export const FAILED = 4;
export type RecipientFlag = typeof DELIVERED | typeof OPENED | typeof FAILED;

/**
 * The recipient row an event applies to, for one batch: its ids, address and which of
 * `delivered_at`, `opened_at`, `failed_at` are set (bits of `state`; the applier only ever
 * asks whether they are NULL). `block`/`slot` say where the cached copy lives.
 */
export interface RecipientView {
  id: string;
  email_id: string;
  member_id: string;
  member_email: string;
  state: number;
  block: EmailRecipients;
  slot: number;
}

/**
 * Sets `flag` on the recipient (and its cached copy); returns whether it was unset, i.e. the
 * column was NULL and must now be written.
 */
export function markRecipient(r: RecipientView, flag: RecipientFlag): boolean {
  if ((r.state & flag) !== 0) return false;
  r.state |= flag;
  r.block.state[r.slot] = r.state;
  return true;
}

/** Recipient rows a run keeps in memory at most (about 130 bytes of heap each). */
const MAX_CACHED_RECIPIENTS = 150_000;

/** An email's recipients are read at once when a batch wants at least this many of them… */
const WHOLE_EMAIL_MIN_WANTED = 50;
/** …and it has at most this many. */
const WHOLE_EMAIL_MAX_RECIPIENTS = 50_000;

/**
 * The cached recipients of one email, column-wise (a row object per recipient cost ~260 bytes
 * of heap, this ~130): address → slot, and per slot the row id, the member id and the state
 * bits. Addresses and member ids are interned: a member is a recipient of many emails.
 */
export class EmailRecipients {
  readonly slots = new Map<string, number>();
  readonly ids: string[] = [];
  readonly memberIds: string[] = [];
  readonly state: number[] = [];

  constructor(readonly emailId: string) {}

  /** A batch's view of the recipient in `slot`. */
  view(address: string, slot: number): RecipientView {
    return {
      id: this.ids[slot] as string,
      email_id: this.emailId,
      member_id: this.memberIds[slot] as string,
      member_email: address,
      state: this.state[slot] as number,
      block: this,
      slot,
    };
  }
}

/** The state bits of a row as read. */
function stateOf(r: RecipientRow): number {
  return (
    (r.delivered_at == null ? 0 : DELIVERED) |
    (r.opened_at == null ? 0 : OPENED) |
    (r.failed_at == null ? 0 : FAILED)
  );
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
  readonly #cache = new Map<string, EmailRecipients>();
  /** One copy of each member id and address the cache holds. */
  #interned = new Map<string, string>();
  /** Rows in the cache. */
  #cached = 0;
  /** Emails whose recipients are all in the cache. */
  readonly #wholeEmail = new Set<string>();
  readonly #newsletterByEmail = new Map<string, string | null>();

  constructor(
    private readonly recipientsRepo: RecipientsRepo,
    private readonly emailsRepo: EmailsRepo,
  ) {}

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
    const rows = await this.recipientsRepo.emailIdsByProvider(tx, [...unknown]);
    for (const id of unknown) this.#emailByProvider.set(id, null);
    for (const r of rows) if (r.provider_id) this.#emailByProvider.set(r.provider_id, r.email_id);
    return events.map(
      (e) =>
        e.emailId ||
        (e.providerId ? (this.#emailByProvider.get(e.providerId) ?? undefined) : undefined),
    );
  }

  /**
   * The recipients of the given email id → addresses, as email id → address → view (one view
   * per recipient for the batch); the first row by id on duplicates.
   */
  async recipients(
    tx: Transaction<EmailAnalyticsTables>,
    wanted: ReadonlyMap<string, Set<string>>,
  ): Promise<Map<string, Map<string, RecipientView>>> {
    const found = new Map<string, Map<string, RecipientView>>();
    if (this.#cached > MAX_CACHED_RECIPIENTS) this.reset();
    for (const [emailId, addresses] of wanted) {
      if (!this.#wholeEmail.has(emailId) && addresses.size >= WHOLE_EMAIL_MIN_WANTED) {
        await this.#loadWholeEmail(tx, emailId);
      }
      const complete = this.#wholeEmail.has(emailId);
      const views = new Map<string, RecipientView>();
      found.set(emailId, views);
      const block = this.#cache.get(emailId);
      const missing: string[] = [];
      for (const address of addresses) {
        const slot = block?.slots.get(address);
        if (block && slot !== undefined) views.set(address, block.view(address, slot));
        else if (!complete) missing.push(address);
      }
      if (missing.length === 0) continue;
      const rows = await this.recipientsRepo.recipientsOf(tx, emailId, missing);
      for (const r of rows) this.#remember(emailId, r, views);
    }
    return found;
  }

  /**
   * Reads all of an email's recipients at once (one index range instead of thousands of
   * lookups) when it is small enough to keep; its addresses not found are then not recipients.
   */
  async #loadWholeEmail(tx: Transaction<EmailAnalyticsTables>, emailId: string): Promise<void> {
    const count = await this.emailsRepo.recipientCount(tx, emailId);
    if (count === undefined || count > WHOLE_EMAIL_MAX_RECIPIENTS) return;
    if (this.#cached + count > MAX_CACHED_RECIPIENTS) return;
    const rows = await this.recipientsRepo.recipientsOf(tx, emailId);
    for (const r of rows) this.#remember(emailId, r);
    this.#wholeEmail.add(emailId);
  }

  /** Caches a row read from the database (the first by id wins on duplicates). */
  #remember(emailId: string, r: RecipientRow, views?: Map<string, RecipientView>): void {
    let block = this.#cache.get(emailId);
    if (!block) {
      block = new EmailRecipients(emailId);
      this.#cache.set(emailId, block);
    }
    if (block.slots.has(r.member_email)) return;
    const address = this.#intern(r.member_email);
    const slot = block.ids.length;
    block.slots.set(address, slot);
    block.ids.push(r.id);
    block.memberIds.push(this.#intern(r.member_id));
    block.state.push(stateOf(r));
    this.#cached += 1;
    views?.set(address, block.view(address, slot));
  }

  /** The run's one copy of `s`. */
  #intern(s: string): string {
    const known = this.#interned.get(s);
    if (known !== undefined) return known;
    this.#interned.set(s, s);
    return s;
  }

  /** Forgets the cached recipient rows. */
  reset(): void {
    this.#cache.clear();
    this.#interned = new Map();
    this.#cached = 0;
    this.#wholeEmail.clear();
  }

  /** The newsletter of each email (cached for the run; null when it has none). */
  async newsletters(
    tx: Transaction<EmailAnalyticsTables>,
    emailIds: Iterable<string>,
  ): Promise<Map<string, string | null>> {
    const missing = [...new Set(emailIds)].filter((id) => !this.#newsletterByEmail.has(id));
    const rows = await this.emailsRepo.newsletters(tx, missing);
    for (const id of missing) this.#newsletterByEmail.set(id, null);
    for (const r of rows) this.#newsletterByEmail.set(r.id, r.newsletter_id);
    return this.#newsletterByEmail;
  }
}
