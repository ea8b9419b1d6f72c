import type { Transaction } from "kysely";
import type { NormalizedEvent } from "../../client/types.ts";
import type { FailuresRepo } from "../../repos/failures-repo.ts";
import { objectId } from "../../repos/sql-batch.ts";
import type { EmailAnalyticsTables, EmailRecipientFailureRow } from "../../tables.ts";
import type { RecipientView } from "./recipients.ts";

/** `permanent` or `temporary`, as Ghost stores a failure's severity. */
export type FailureSeverity = "permanent" | "temporary";

/**
 * Ghost's failure upserts (EmailEventStorage.saveFailure) for a batch: the recipients' existing
 * rows are read once, each failure is applied in event order in memory, and the outcome is
 * written at the end (one insert per chunk of new rows, one update per changed row).
 */
export class FailureUpserts {
  readonly #rows = new Map<string, EmailRecipientFailureRow>();
  readonly #inserted = new Set<string>();
  readonly #changed = new Set<string>();
  /** Failure events without error details (Ghost logs and stores no row). */
  missingError = 0;

  constructor(private readonly repo: FailuresRepo) {}

  /** Reads the existing failure rows of these recipients. */
  async load(tx: Transaction<EmailAnalyticsTables>, recipientIds: Iterable<string>): Promise<void> {
    const rows = await this.repo.ofRecipients(tx, [...new Set(recipientIds)]);
    for (const r of rows)
      if (!this.#rows.has(r.email_recipient_id)) this.#rows.set(r.email_recipient_id, r);
  }

  /**
   * One failure: a new row when the recipient has none; an existing permanent row is never
   * changed, nor one with a later `failed_at`; otherwise the row is overwritten.
   */
  apply(severity: FailureSeverity, event: NormalizedEvent, recipient: RecipientView): void {
    const error = event.error;
    if (!error) {
      this.missingError += 1;
      return;
    }
    const fields = {
      severity,
      message: error.message || `Error ${error.enhancedCode ?? error.code}`,
      code: error.code,
      enhanced_code: error.enhancedCode,
      failed_at: event.timestamp.toISOString(),
      event_id: event.id,
    };
    const existing = this.#rows.get(recipient.id);
    if (!existing) {
      this.#rows.set(recipient.id, {
        id: objectId(),
        email_id: recipient.email_id,
        member_id: recipient.member_id,
        email_recipient_id: recipient.id,
        ...fields,
      });
      this.#inserted.add(recipient.id);
      return;
    }
    if (existing.severity === "permanent") return;
    if (new Date(existing.failed_at).getTime() > event.timestamp.getTime()) return;
    Object.assign(existing, fields);
    if (!this.#inserted.has(recipient.id)) this.#changed.add(recipient.id);
  }

  /** Writes the new and changed rows. */
  async write(tx: Transaction<EmailAnalyticsTables>): Promise<void> {
    const inserts = [...this.#inserted].map((id) => this.#rows.get(id) as EmailRecipientFailureRow);
    await this.repo.insert(tx, inserts);
    for (const recipientId of this.#changed) {
      await this.repo.update(tx, this.#rows.get(recipientId) as EmailRecipientFailureRow);
    }
  }
}
