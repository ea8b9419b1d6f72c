/**
 * Params of `rakuten.embedding-source` and `rakuten.embedding` (zod only: the pipeline's
 * definition imports this file).
 */
import { z } from "zod";

/** `rakuten.embedding-source`: rebuilds the text each item is embedded from. */
export const embeddingSourceParams = z.strictObject({
  batch_size: z
    .number()
    .int()
    .min(1)
    .max(5000)
    .default(500)
    .describe("items read and compared per commit"),
});
export const embeddingSourceExample = { batch_size: 500 };

/** `rakuten.embedding`: embeds the items whose source or model changed. */
export const embeddingParams = z.strictObject({
  max_failure_rate: z
    .number()
    .min(0)
    .max(1)
    .default(0.05)
    .describe("the run ends failed (exit 1) when more than this share of items failed"),
});
export const embeddingExample = { max_failure_rate: 0.05 };

export type EmbeddingSourceParams = z.output<typeof embeddingSourceParams>;
export type EmbeddingParams = z.output<typeof embeddingParams>;
