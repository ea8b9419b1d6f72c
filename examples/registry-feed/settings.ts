import { defineSettings } from "tidemark";
import { z } from "zod";

/** `pipelines.registry-feed` in tidemark.yaml. */
const schema = z.strictObject({
  /** The registry's root (`tidemark fake registry-feed` prints the fake's). */
  base_url: z.url({ protocol: /^https?$/ }).optional(),
  /** Changes per page of the feed. */
  batch: z.number().int().min(1).max(1000).default(200),
  /** Package documents fetched at once. */
  concurrency: z.number().int().min(1).max(32).default(8),
  requests_per_second: z.number().positive().default(20),
});

/** What the jobs and the panel receive as `settings`. */
export interface RegistryFeedSettings {
  baseUrl: string | undefined;
  batch: number;
  concurrency: number;
  requestsPerSecond: number;
}

export const registryFeedSettings = defineSettings({
  schema,
  env: [
    { name: "TIDEMARK_REGISTRY_FEED_URL", path: ["base_url"], kind: "http-url" },
    {
      name: "TIDEMARK_REGISTRY_FEED_REQUESTS_PER_SECOND",
      path: ["requests_per_second"],
      kind: "integer",
    },
  ],
  resolve: (s): RegistryFeedSettings => ({
    baseUrl: s.base_url?.replace(/\/+$/, ""),
    batch: s.batch,
    concurrency: s.concurrency,
    requestsPerSecond: s.requests_per_second,
  }),
});
