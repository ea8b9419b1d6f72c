import type { CampaignEmail } from "./fake-types.ts";

/** Size and timing of a sample newsletter (members, emails, who got which). */
export interface SampleNewsletterOptions {
  members: number;
  emails: number;
  /** Recipients of each email (≤ members): email k goes to a window of members shifted by k. */
  recipientsPerEmail: number;
  /** When the first email went out. */
  firstSentAt: Date;
  /** Hours between two emails (default 24). */
  spacingHours?: number;
  /** Recipients per Mailgun batch (default 1000, Ghost's batch size). */
  batchSize?: number;
  /** The sending domain in message ids (default mg.example.com). */
  domain?: string;
  /** Default true. */
  trackOpens?: boolean;
}

/** One NDJSON record of the import format. */
export type SampleRecord = { type: string } & Record<string, string | number | boolean | null>;

/** A sample newsletter: its import records (lazily) and the matching campaign for the fake. */
export interface SampleNewsletter {
  records(): Generator<SampleRecord>;
  campaign: CampaignEmail[];
  newsletterId: string;
}

/** A 24-hex-char id like Ghost's ObjectIds, stable per (kind, n). */
export function sampleId(kind: number, n: number): string {
  return `${kind.toString(16).padStart(2, "0")}${n.toString(16).padStart(22, "0")}`;
}

function sampleUuid(kind: number, n: number): string {
  const hex = n.toString(16).padStart(12, "0");
  return `${kind.toString(16).padStart(8, "0")}-0000-4000-8000-${hex}`;
}

const FIRST = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Radia"];
const LAST = ["Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson"];
const KIND = { member: 0x6d, email: 0xe1, batch: 0xb4, recipient: 0x7e, sub: 0x5b, post: 0x90 };

/**
 * Builds a newsletter of `members` members and `emails` emails, email k sent to members
 * [k·shift, k·shift + recipientsPerEmail) with shift = members / emails (wrapping), in batches with Mailgun message ids; the
 * same numbers always give the same ids, so the fake's campaign matches the imported rows.
 */
export function sampleNewsletter(o: SampleNewsletterOptions): SampleNewsletter {
  const domain = o.domain ?? "mg.example.com";
  const batchSize = o.batchSize ?? 1000;
  const spacingMs = (o.spacingHours ?? 24) * 3_600_000;
  const per = Math.min(o.recipientsPerEmail, o.members);
  // Windows wrap around the member list, so with members = emails × shift each member gets
  // recipientsPerEmail / shift emails.
  const shift = Math.max(1, Math.floor(o.members / Math.max(1, o.emails)));
  const newsletterId = sampleId(0x4e, 1);
  const memberAt = (i: number) => (i % o.members) as number;
  const sentAt = (k: number) => new Date(o.firstSentAt.getTime() + k * spacingMs);
  const providerId = (k: number, b: number) =>
    `${sentAt(k).toISOString().replace(/\D/g, "").slice(0, 14)}.${k + 1}.${b + 1}@${domain}`;
  const memberEmail = (i: number) => `member${i + 1}@example.com`;

  const campaign: CampaignEmail[] = [];
  for (let k = 0; k < o.emails; k++) {
    const recipients = [];
    for (let j = 0; j < per; j++) {
      recipients.push({
        email: memberEmail(memberAt(k * shift + j)),
        providerId: providerId(k, Math.floor(j / batchSize)),
      });
    }
    campaign.push({
      id: sampleId(KIND.email, k + 1),
      sentAt: sentAt(k),
      trackOpens: o.trackOpens ?? true,
      recipients,
    });
  }

  function* records(): Generator<SampleRecord> {
    for (let i = 0; i < o.members; i++) {
      yield {
        type: "member",
        id: sampleId(KIND.member, i + 1),
        uuid: sampleUuid(KIND.member, i + 1),
        email: memberEmail(i),
        name: `${FIRST[i % FIRST.length]} ${LAST[i % LAST.length]}`,
        status: i % 10 === 0 ? "paid" : "free",
        created_at: new Date(o.firstSentAt.getTime() - 30 * 86_400_000).toISOString(),
      };
      yield {
        type: "newsletter_subscription",
        id: sampleId(KIND.sub, i + 1),
        member_id: sampleId(KIND.member, i + 1),
        newsletter_id: newsletterId,
      };
    }
    for (let k = 0; k < o.emails; k++) {
      const emailId = sampleId(KIND.email, k + 1);
      const at = sentAt(k).toISOString();
      yield {
        type: "email",
        id: emailId,
        post_id: sampleId(KIND.post, k + 1),
        subject: `Issue #${k + 1}`,
        status: "submitted",
        track_opens: o.trackOpens ?? true,
        newsletter_id: newsletterId,
        email_count: per,
        submitted_at: at,
        created_at: at,
      };
      for (let b = 0; b * batchSize < per; b++) {
        yield {
          type: "email_batch",
          id: sampleId(KIND.batch, k * 100_000 + b + 1),
          email_id: emailId,
          provider_id: providerId(k, b),
          status: "submitted",
          created_at: at,
        };
      }
      for (let j = 0; j < per; j++) {
        const m = memberAt(k * shift + j);
        yield {
          type: "email_recipient",
          id: sampleId(KIND.recipient, k * 10_000_000 + j + 1),
          email_id: emailId,
          member_id: sampleId(KIND.member, m + 1),
          batch_id: sampleId(KIND.batch, k * 100_000 + Math.floor(j / batchSize) + 1),
          processed_at: at,
        };
      }
    }
  }
  return { records, campaign, newsletterId };
}
