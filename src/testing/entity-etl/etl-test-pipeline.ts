import type { Kysely } from "kysely";
import { z } from "zod";
import type { ApplyInput } from "../../engine/entity-etl/etl-types.ts";
import { Ledger } from "../../engine/entity-etl/ledger.ts";
import { createLedgerTable, type LedgerTable } from "../../engine/entity-etl/ledger-table.ts";
import { reapplyEntity } from "../../engine/entity-etl/reapply-entity.ts";
import { runEntityEtl } from "../../engine/entity-etl/run-entity-etl.ts";
import { defineJobType, definePipeline } from "../../engine/registry/pipeline-definition.ts";
import { Registry } from "../../engine/registry/registry.ts";
import { ensureSchema } from "../../infra/db/dialect.ts";
import type { FakeCatalogue, ItemDoc } from "./fake-catalogue.ts";

/** Tables of the ETL test pipeline: its ledger and one domain table. */
export interface EtlTestTables {
  "etl.staging": LedgerTable;
  "etl.thing": {
    id: string;
    title: string | null;
    price: number;
    content_hash: string;
    apply_version: number;
  };
}

export const LEDGER_TABLE = "etl.staging";

const params = z
  .object({
    apply_version: z.number().int().default(1),
    max_failure_rate: z.number().min(0).max(1).default(0.05),
    batch_size: z.number().int().positive().default(3),
  })
  .strict();

/** The domain apply: upserts `etl.thing`; fails after writing when the catalogue says so. */
async function applyThing(
  world: FakeCatalogue,
  version: number,
  input: ApplyInput<ItemDoc, EtlTestTables>,
): Promise<void> {
  world.applies.push({ target: input.target, reason: input.reason });
  const row = {
    id: input.document.id,
    title: input.document.title,
    price: input.document.price,
    content_hash: input.contentHash,
    apply_version: version,
  };
  await input.tx
    .insertInto("etl.thing")
    .values(row)
    .onConflict((oc) => oc.column("id").doUpdateSet(row))
    .execute();
  // Written first, so a passing test proves the savepoint undid it.
  if (world.failApply.has(input.target)) throw new Error(`apply refused ${input.target}`);
}

/** A pipeline `etl` whose jobs run the entity ETL over `world` (pull) or re-apply (reapply). */
export function etlTestRegistry(world: FakeCatalogue): Registry {
  const pull = defineJobType({
    name: "etl.pull",
    description: "entity ETL over the fake catalogue",
    params,
    example: {},
    run(ctx, p) {
      return runEntityEtl({
        ctx: { ...ctx, progress: (_label, total) => world.progress(total) },
        source: "fake",
        entity: "item",
        targets: () => world.targetList(),
        fetch: (target) => world.fetch(target),
        normalize: (raw) => world.normalize(raw),
        apply: (input: ApplyInput<ItemDoc, EtlTestTables>) =>
          applyThing(world, p.apply_version, input),
        applyVersion: p.apply_version,
        ledger: new Ledger(ctx.db, LEDGER_TABLE, ctx.clock),
        maxFailureRate: p.max_failure_rate,
        batchSize: p.batch_size,
        concurrency: 2,
      });
    },
  });
  const reapply = defineJobType({
    name: "etl.reapply",
    description: "re-apply from the raw store",
    params,
    example: {},
    run(ctx, p) {
      return reapplyEntity({
        ctx,
        source: "fake",
        entity: "item",
        apply: (input: ApplyInput<ItemDoc, EtlTestTables>) =>
          applyThing(world, p.apply_version, input),
        applyVersion: p.apply_version,
        ledger: new Ledger(ctx.db, LEDGER_TABLE, ctx.clock),
        maxFailureRate: p.max_failure_rate,
        batchSize: p.batch_size,
      });
    },
  });
  const pipeline = definePipeline({
    name: "etl",
    description: "entity ETL test pipeline",
    jobTypes: [pull, reapply],
    migrations: async () => ({
      "0001-etl": {
        async up(db: Kysely<object>) {
          await createLedgerTable(db, LEDGER_TABLE);
          await ensureSchema(db, "etl");
          await db.schema
            .createTable("etl.thing")
            .addColumn("id", "text", (c) => c.primaryKey())
            .addColumn("title", "text")
            .addColumn("price", "integer", (c) => c.notNull())
            .addColumn("content_hash", "text", (c) => c.notNull())
            .addColumn("apply_version", "integer", (c) => c.notNull())
            .execute();
        },
      },
    }),
  });
  return new Registry([pipeline]);
}
