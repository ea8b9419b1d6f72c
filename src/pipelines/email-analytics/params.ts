import { z } from "zod";

/** Params of an `email-analytics.fetch` job: all optional, so `{}` is a complete job. */
export const emailAnalyticsFetchParams = z.strictObject({
  max_events: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      "stop starting new cycles once the run has read this many events (default: go on until caught up)",
    ),
});

/** Validated `email-analytics.fetch` params. */
export type EmailAnalyticsFetchParams = z.output<typeof emailAnalyticsFetchParams>;

/** The job as shipped: no params (every 5 minutes, 10,000 events a cycle). */
export const emailAnalyticsFetchExample = {};

/** Every fetch job shares one lease: Ghost's `fetching` flag, across processes. */
export const FETCH_LEASE_KEY = "email-analytics.fetch";
