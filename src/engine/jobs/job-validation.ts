import { formatZodIssues } from "../../infra/config/format-zod-issues.ts";
import { UsageError } from "../errors.ts";
import type { Registry } from "../registry/registry.ts";
import { JOB_NAME_PATTERN, type JobSpec, jobSpecSchema } from "./job-spec.ts";
import { validateSchedule, validateTimezone } from "./schedule.ts";

/** Validates params against the job type's schema; returns the parsed params. */
export function validateParams(
  registry: Registry,
  jobName: string,
  type: string,
  params: unknown,
): unknown {
  const parsed = registry.jobType(type).params.safeParse(params);
  if (!parsed.success) {
    throw new UsageError(formatZodIssues(`job ${jobName} params`, parsed.error, params));
  }
  return parsed.data;
}

/** Checks a whole job (name, type, params, schedule, time zone); needs no database. */
export function validateJobSpec(registry: Registry, spec: JobSpec): void {
  if (!JOB_NAME_PATTERN.test(spec.name)) {
    throw new UsageError(
      `job name ${JSON.stringify(spec.name)}: use letters, digits, '.', '-', '_' (max 100)`,
    );
  }
  validateParams(registry, spec.name, spec.type, spec.params);
  validateTimezone(spec.timezone);
  if (spec.schedule !== null) validateSchedule(spec.schedule, spec.timezone);
}

/** Parses raw job fields (from CLI flags) into a validated spec. */
export function parseJobSpec(registry: Registry, raw: unknown, where: string): JobSpec {
  const parsed = jobSpecSchema.safeParse(raw);
  if (!parsed.success) throw new UsageError(formatZodIssues(where, parsed.error, raw));
  validateJobSpec(registry, parsed.data);
  return parsed.data;
}
