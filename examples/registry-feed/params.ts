import { z } from "zod";

/** Params of `registry-feed.follow` (`tidemark job describe registry-feed.follow`). */
export const followParams = z.strictObject({
  since: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("the change sequence the first run starts after (default 0: the whole feed)"),
  batch: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe("changes asked for per page of the feed (default: the batch setting)"),
});

export type FollowParams = z.output<typeof followParams>;

/** Ready-to-use params. */
export const followExample = { since: 0, batch: 100 };
