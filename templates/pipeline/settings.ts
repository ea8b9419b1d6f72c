import { defineSettings } from "tidemark";
import { z } from "zod";

/** `pipelines.starter-kit` in tidemark.yaml (unknown keys are refused when the file is loaded). */
const schema = z.strictObject({
  /** The API's root, e.g. the fake's URL (`tidemark fake starter-kit` prints it). */
  base_url: z.url({ protocol: /^https?$/ }).optional(),
  /** Records per page unless a job's params say otherwise. */
  page_size: z.number().int().min(1).max(500).default(100),
  /** Requests per second to the API (the fake allows many; a real API will want fewer). */
  requests_per_second: z.number().positive().default(5),
});

/** What the pipeline's jobs, panel and commands receive as `settings`. */
export interface StarterKitSettings {
  /** Without a trailing slash; undefined until configured (a run then fails, naming both places). */
  baseUrl: string | undefined;
  pageSize: number;
  requestsPerSecond: number;
}

export const starterKitSettings = defineSettings({
  schema,
  env: [
    { name: "TIDEMARK_STARTER_KIT_URL", path: ["base_url"], kind: "http-url" },
    {
      name: "TIDEMARK_STARTER_KIT_REQUESTS_PER_SECOND",
      path: ["requests_per_second"],
      kind: "integer",
    },
  ],
  resolve: (s): StarterKitSettings => ({
    baseUrl: s.base_url?.replace(/\/+$/, ""),
    pageSize: s.page_size,
    requestsPerSecond: s.requests_per_second,
  }),
});
