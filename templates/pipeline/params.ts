import { z } from "zod";

/** Params of `starter-kit.sync` (`tidemark job describe starter-kit.sync` shows them). */
export const syncParams = z.strictObject({
  since: z.iso
    .datetime({ offset: true })
    .optional()
    .describe(
      "where the first run starts (records updated at or after it); later runs go on from the cursor",
    ),
  page_size: z
    .number()
    .int()
    .min(1)
    .max(500)
    .optional()
    .describe("records per page (default: the pipeline's page_size setting)"),
});

export type SyncParams = z.output<typeof syncParams>;

/** Ready-to-use params: `tidemark job add records --type starter-kit.sync --params '…'`. */
export const syncExample = { since: "2026-01-01T00:00:00Z", page_size: 50 };
