import { z } from "zod";
import { formatZodIssues } from "../../infra/config/format-zod-issues.ts";
import { UsageError } from "../errors.ts";
import type { StoredJobChanges, StoredJobSpec } from "../registry/stored-jobs.ts";

/** Job names: letters, digits, `.`, `-`, `_`; they appear in run ids, lease keys and paths. */
export const JOB_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** One job as written in a jobs YAML file (`tidemark job import` / `export`). */
export const jobSpecSchema = z
  .object({
    name: z.string().regex(JOB_NAME_PATTERN, "letters, digits, '.', '-', '_' (max 100)"),
    type: z.string().min(1),
    params: z.unknown().default({}),
    schedule: z.string().min(1).nullable().default(null),
    timezone: z.string().min(1).default("UTC"),
    enabled: z.boolean().default(true),
    /** Seconds of random offset added to each occurrence (spreads load); omitted = 0. */
    jitter: z.number().int().min(0).max(86_400).optional(),
  })
  .strict();

/** A jobs file: `jobs:` followed by a list of job specs. */
export const jobsFileSchema = z.object({ jobs: z.array(jobSpecSchema) }).strict();

export type JobSpec = z.output<typeof jobSpecSchema>;
/** A job spec as written, before the defaults apply (the contract's StoredJobSpec). */
export type JobSpecInput = StoredJobSpec;

/** Changes accepted by `job update` (the contract's StoredJobChanges). */
export type JobChanges = StoredJobChanges;

/** A spec with its defaults applied; UsageError naming every bad field. */
export function parseJobSpec(spec: JobSpecInput): JobSpec {
  const parsed = jobSpecSchema.safeParse(spec);
  if (!parsed.success) {
    const name = typeof spec.name === "string" ? spec.name : "?";
    throw new UsageError(formatZodIssues(`job ${name}`, parsed.error, spec));
  }
  return parsed.data;
}
