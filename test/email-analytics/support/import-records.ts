// Records of the import tests: one of each type, all referring to each other, and the
// pipeline's migrations to create Ghost's tables with.

/** The email-analytics migration scope (Ghost's tables only). */
export const importScope = {
  name: "email-analytics",
  migrations: async () => ({
    "0001-email-analytics": await import(
      "../../../src/pipelines/email-analytics/migrations/0001-email-analytics.ts"
    ),
  }),
};

/** A 24-character Ghost id made of one character. */
export const id = (c: string) => c.repeat(24);

export const member = { type: "member", id: id("a"), email: "ada@example.com", name: "Ada" };
export const email = {
  type: "email",
  id: id("e"),
  post_id: id("p"),
  track_opens: true,
  submitted_at: "2026-01-14T08:00:00+01:00",
};
export const batch = {
  type: "email_batch",
  id: id("b"),
  email_id: id("e"),
  provider_id: "<20260114.1@mg.example.com>",
};
export const recipient = {
  type: "email_recipient",
  id: id("r"),
  email_id: id("e"),
  member_id: id("a"),
  batch_id: id("b"),
};
export const subscription = {
  type: "newsletter_subscription",
  id: id("s"),
  member_id: id("a"),
  newsletter_id: id("n"),
};
