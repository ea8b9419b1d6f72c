/**
 * Snapshots pipeline (seed 002, ETL CANON): ingestion of supplier full-snapshot files
 * (CSV/XLSX) from an inbox into an immutable, atomically published per-supplier state.
 * This module stays light (zod + definition helpers): every implementation loads on first use.
 */
import { z } from "zod";
import { defineJobType, definePipeline } from "../../engine/registry/pipeline-definition.ts";

/** Seed supplier names: ASCII letters, digits, `-`, `_` (also enforced in layout/supplier-name). */
const SUPPLIER = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Lease key of a supplier: the per-supplier lock of seed §5. */
export const supplierLeaseKey = (supplier: string) => `snapshots:${supplier}`;

/** `snapshots.ingest`: one ingestion of a supplier's inbox. */
export const ingestJobType = defineJobType({
  name: "snapshots.ingest",
  description: "ingest the newest stable full-snapshot file of a supplier (seed 002)",
  params: z
    .object({
      supplier: z
        .string()
        .regex(SUPPLIER, "letters, digits, '-' and '_' only, starting with a letter or digit"),
    })
    .strict(),
  leaseKey: (_job, params) => supplierLeaseKey(params.supplier),
  async run(ctx, params) {
    const { runIngestJob } = await import("./ingest/ingest-job.ts");
    return runIngestJob(ctx, params.supplier);
  },
});

/** The pipeline definition registered in src/pipelines/index.ts. */
export const snapshotsPipeline = definePipeline({
  name: "snapshots",
  description: "supplier full-snapshot files → immutable published state (ETL CANON, seed 002)",
  jobTypes: [ingestJobType],
  migrations: async () => ({
    "0001-snapshots": await import("./db/migrations/0001-snapshots.ts"),
  }),
  async metrics(register, runtime) {
    const [{ registerSnapshotsMetrics }, { snapshotsStatus }] = await Promise.all([
      import("./monitoring/metrics.ts"),
      import("./monitoring/status.ts"),
    ]);
    await registerSnapshotsMetrics(register, () => snapshotsStatus(runtime));
  },
  cli(program, services) {
    const group = program
      .command("snapshots")
      .description("supplier full-snapshot ingestion (seed 002): run, status, read, gc");
    group
      .command("run [supplier]")
      .description(
        "ingest a supplier's newest stable inbox file (exit 0 PASS/no input, 1 FAIL, 2 usage/config, 3 locked)",
      )
      .option("--all", "every supplier with a config file or an inbox folder, one after another")
      .option("--dry-run", "only report what the inbox step would do; change nothing")
      .option("--json", "print the results as JSON")
      .action(
        async (
          supplier: string | undefined,
          opts: { all?: boolean; dryRun?: boolean; json?: boolean },
        ) => {
          const { runCommand } = await import("./cli/run-command.ts");
          await runCommand(services, supplier, opts);
        },
      );
    group
      .command("status [supplier]")
      .description(
        "state age, last run, consecutive FAILs and identical-SHA streak per supplier (§14)",
      )
      .option("--json", "print as JSON")
      .action(async (supplier: string | undefined, opts: { json?: boolean }) => {
        const { statusCommand } = await import("./cli/status-command.ts");
        await statusCommand(services, supplier, opts);
      });
    group
      .command("read <supplier>")
      .description("stream the supplier's published facts (state/current) as NDJSON to stdout")
      .action(async (supplier: string) => {
        const { readCommand } = await import("./cli/read-command.ts");
        await readCommand(services, supplier);
      });
    group
      .command("gc")
      .description(
        "apply retention (§13, §12.2): never the active state or recent states/accepted runs",
      )
      .option("--dry-run", "list what would be deleted")
      .option("--supplier <name>", "only this supplier")
      .option("--json", "print the plan as JSON")
      .action(async (opts: { dryRun?: boolean; supplier?: string; json?: boolean }) => {
        const { gcCommand } = await import("./cli/gc-command.ts");
        await gcCommand(services, opts);
      });
  },
  async demo(ctx) {
    const { runDemo } = await import("./fake/demo.ts");
    await runDemo(ctx);
  },
});
