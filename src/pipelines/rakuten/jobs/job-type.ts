import { defineJobType, type JobContext, type JobResult, type JobType } from "tidemark";
import type { z } from "zod";
import { type RakutenSettings, rakutenSettings } from "../settings.ts";

/**
 * One lease per entity, held by every job that writes its ledger and domain rows (the entity's
 * jobs, whatever their names, and `rakuten reapply <entity>`): two runs applying the same items
 * at once could each record the same price change. The API's rate limit is shared anyway.
 */
export function entityLeaseKey(entity: string): string {
  return `rakuten:${entity}`;
}

/** What sets one Rakuten job type apart from the others. */
export interface RakutenJobSpec<S extends z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly params: S;
  readonly example: Record<string, unknown>;
  /** The entity whose lease a run holds (fixed, or from the params); none: no entity lease. */
  readonly entity?: string | ((params: z.output<S>) => string);
  /** Loads the job's implementation on its first run, so the definition stays cheap to import. */
  readonly load: () => Promise<
    (ctx: JobContext<RakutenSettings>, params: z.output<S>) => Promise<JobResult>
  >;
}

/**
 * A Rakuten job type: the pipeline's settings, its entity lease, its lazily loaded run. */
export function rakutenJobType<S extends z.ZodType>(spec: RakutenJobSpec<S>): JobType<z.output<S>> {
  const { entity, load, ...rest } = spec;
  const leaseOf = typeof entity === "string" ? () => entity : entity;
  return defineJobType({
    ...rest,
    settings: rakutenSettings,
    ...(leaseOf && {
      leaseKey: (_job: string, params: z.output<S>) => entityLeaseKey(leaseOf(params)),
    }),
    async run(ctx, params) {
      const run = await load();
      return run(ctx, params);
    },
  });
}
