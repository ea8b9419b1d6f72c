import { formatZodIssues } from "../../infra/config/format-zod-issues.ts";
import type { Database } from "../../infra/db/open-database.ts";
import type { Clock } from "../clock/clock.ts";
import { isoTimestamp } from "../clock/clock.ts";
import { NotFoundError, UsageError } from "../errors.ts";
import type { Registry } from "../registry/registry.ts";
import { type JobRecord, JobRepo } from "./job-repo.ts";
import { type JobChanges, type JobSpec, jobsFileSchema } from "./job-spec.ts";

export type { JobChanges } from "./job-spec.ts";

import { validateJobSpec } from "./job-validation.ts";

/** Job management with validation: nothing invalid ever reaches `tm_jobs`. */
export class JobService {
  readonly repo: JobRepo;

  constructor(
    db: Database,
    private readonly registry: Registry,
    private readonly clock: Clock,
  ) {
    this.repo = new JobRepo(db);
  }

  /** Checks a whole spec (name, type, params, schedule, time zone). */
  validateSpec(spec: JobSpec): void {
    validateJobSpec(this.registry, spec);
  }

  /** The job, or NotFoundError (exit 2). */
  async get(name: string): Promise<JobRecord> {
    const job = await this.repo.get(name);
    if (!job) throw new NotFoundError(`unknown job ${JSON.stringify(name)}`);
    return job;
  }

  /** Adds a new job; refuses an existing name. */
  async add(spec: JobSpec): Promise<JobRecord> {
    this.validateSpec(spec);
    if (await this.repo.get(spec.name)) {
      throw new UsageError(`job ${JSON.stringify(spec.name)} already exists (use job update)`);
    }
    const now = isoTimestamp(this.clock.now());
    const job: JobRecord = { ...spec, createdAt: now, updatedAt: now };
    await this.repo.insert(job);
    return job;
  }

  /** Applies changes to an existing job after validating the result. */
  async update(name: string, changes: JobChanges): Promise<JobRecord> {
    const current = await this.get(name);
    const next: JobRecord = {
      ...current,
      type: changes.type ?? current.type,
      params: changes.params === undefined ? current.params : changes.params,
      schedule: changes.schedule === undefined ? current.schedule : changes.schedule,
      timezone: changes.timezone ?? current.timezone,
      enabled: changes.enabled ?? current.enabled,
      updatedAt: isoTimestamp(this.clock.now()),
    };
    const jitter = changes.jitter ?? current.jitter ?? 0;
    if (jitter > 0) next.jitter = jitter;
    else delete next.jitter;
    this.validateSpec(next);
    await this.repo.update(next);
    return next;
  }

  /** Deletes a job (its run history stays). */
  async remove(name: string): Promise<void> {
    if (!(await this.repo.delete(name))) {
      throw new NotFoundError(`unknown job ${JSON.stringify(name)}`);
    }
  }

  /**
   * Adds or replaces every job of a jobs file in one transaction; a single invalid entry
   * rejects the whole file and writes nothing.
   */
  async import(
    document: unknown,
    where: string,
  ): Promise<Array<{ name: string; action: "added" | "updated" }>> {
    const parsed = jobsFileSchema.safeParse(document);
    if (!parsed.success) throw new UsageError(formatZodIssues(where, parsed.error, document));
    const seen = new Set<string>();
    parsed.data.jobs.forEach((spec, i) => {
      if (seen.has(spec.name))
        throw new UsageError(`${where}: jobs.${i}: duplicate job name ${spec.name}`);
      seen.add(spec.name);
      try {
        this.validateSpec(spec);
      } catch (err) {
        throw new UsageError(`${where}: jobs.${i} (${spec.name}): ${(err as Error).message}`);
      }
    });
    const now = isoTimestamp(this.clock.now());
    return this.repo.transaction(async (repo) => {
      const out: Array<{ name: string; action: "added" | "updated" }> = [];
      for (const spec of parsed.data.jobs) {
        const existing = await repo.get(spec.name);
        if (existing) {
          await repo.update({ ...spec, createdAt: existing.createdAt, updatedAt: now });
          out.push({ name: spec.name, action: "updated" });
        } else {
          await repo.insert({ ...spec, createdAt: now, updatedAt: now });
          out.push({ name: spec.name, action: "added" });
        }
      }
      return out;
    });
  }

  /** Every job as a jobs-file document (round-trips through import). */
  async export(): Promise<{ jobs: JobSpec[] }> {
    const jobs = await this.repo.list();
    return {
      jobs: jobs.map((j) => ({
        name: j.name,
        type: j.type,
        params: j.params,
        schedule: j.schedule,
        timezone: j.timezone,
        enabled: j.enabled,
        ...(j.jitter ? { jitter: j.jitter } : {}),
      })),
    };
  }
}
