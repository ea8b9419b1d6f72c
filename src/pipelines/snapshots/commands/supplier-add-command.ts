import { existsSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { type CliServices, type PipelineServices, UsageError } from "tidemark";
import type { SnapshotSettings } from "../settings.ts";
import { supplierConfigFile } from "../stages/intake/config/load-supplier-config.ts";
import { checkSupplierName } from "../stages/intake/layout/supplier-name.ts";
import { inboxDir } from "../stages/intake/layout/tree.ts";
import {
  DQ_DEFAULTS,
  type DqValues,
  supplierConfigTemplate,
} from "../stages/intake/suppliers/config-template.ts";
import { checkSupplierJobName, supplierJobName } from "../stages/intake/suppliers/supplier-job.ts";

/** Options of `tidemark snapshots supplier add` (as commander passes them: strings). */
export interface SupplierAddOptions {
  dqMinFactCount?: string;
  dqMaxBadRatio?: string;
  dqAllowEmptySnapshot?: boolean;
  schedule?: string;
  timezone?: string;
  force?: boolean;
}

/** The DQ values of the options, defaults for those not given; a bad value is exit 2. */
export function dqValuesOf(opts: SupplierAddOptions): DqValues {
  const dq = { ...DQ_DEFAULTS };
  if (opts.dqMinFactCount !== undefined) {
    if (!/^\d+$/.test(opts.dqMinFactCount)) {
      throw new UsageError(
        `--dq-min-fact-count: expected a whole number (0 or more), got ${JSON.stringify(opts.dqMinFactCount)}`,
      );
    }
    dq.min_fact_count = Number(opts.dqMinFactCount);
  }
  if (opts.dqMaxBadRatio !== undefined) {
    const ratio = Number(opts.dqMaxBadRatio);
    if (!/^\d*\.?\d+$/.test(opts.dqMaxBadRatio) || ratio > 1) {
      throw new UsageError(
        `--dq-max-bad-ratio: expected a number from 0 to 1, got ${JSON.stringify(opts.dqMaxBadRatio)}`,
      );
    }
    dq.max_bad_ratio = ratio;
  }
  if (opts.dqAllowEmptySnapshot) dq.allow_empty_snapshot = true;
  return dq;
}

/** Writes a file whole or not at all (a reader never sees half a config). */
async function writeWhole(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}

/**
 * Stores the job `snapshots.<supplier>` (validated by planSupplierJob before anything was
 * written): added when there is none, its schedule and time zone changed when given, else
 * kept. Says what it did, for the report.
 */
async function storeSupplierJob(
  services: PipelineServices<SnapshotSettings>,
  plan: SupplierJobPlan,
  opts: SupplierAddOptions,
): Promise<string> {
  const { spec, existing } = plan;
  if (!existing) {
    await services.jobs.add(spec);
    return `${spec.name} added`;
  }
  if (opts.schedule !== undefined || opts.timezone !== undefined) {
    await services.jobs.update(spec.name, { schedule: spec.schedule, timezone: spec.timezone });
    return `${spec.name} updated`;
  }
  return `${spec.name} kept as it was`;
}

/** The job `snapshots.<s>` as it will be stored, and whether one exists. */
interface SupplierJobPlan {
  spec: {
    name: string;
    type: string;
    params: { supplier: string };
    schedule: string | null;
    timezone: string;
    enabled: boolean;
  };
  existing: boolean;
}

/** The supplier's job with the options applied, validated (a bad schedule is exit 2). */
async function planSupplierJob(
  services: PipelineServices<SnapshotSettings>,
  supplier: string,
  opts: SupplierAddOptions,
): Promise<SupplierJobPlan> {
  const jobName = supplierJobName(supplier);
  const job = await services.jobs.get(jobName);
  const spec = {
    name: jobName,
    type: "snapshots.ingest",
    params: { supplier },
    schedule: opts.schedule ?? job?.schedule ?? null,
    timezone: opts.timezone ?? job?.timezone ?? "UTC",
    enabled: job?.enabled ?? true,
  };
  services.jobs.validate(spec);
  return { spec, existing: job !== undefined };
}

/** Where to drop the supplier's files: its inbox folder (created, fs) or key prefix (s3). */
async function prepareInbox(settings: SnapshotSettings, supplier: string): Promise<string> {
  const inboxKey = inboxDir(supplier);
  if (settings.storage === "fs") {
    const dir = path.join(settings.root, ...inboxKey.split("/"));
    await mkdir(dir, { recursive: true });
    return `${dir}${path.sep}`;
  }
  return `${settings.root}/${inboxKey}/ (key prefix in the blob store of tidemark.yaml)`;
}

/**
 * `tidemark snapshots supplier add <name>`: writes the supplier's DQ config (every key shown,
 * commented), creates its inbox folder (fs storage) and the job `snapshots.<name>`, and says
 * where to drop files and how to run it. Everything is checked before anything is written:
 * an invalid name or option, an existing config without --force, a bad schedule, or a job
 * `snapshots.<name>` that ingests something else is exit 2 with nothing changed.
 */
export async function supplierAddCommand(
  services: CliServices,
  name: string,
  opts: SupplierAddOptions,
): Promise<void> {
  const supplier = checkSupplierName(name);
  const dq = dqValuesOf(opts);
  const pipeline = await services.services<SnapshotSettings>();
  const { settings } = pipeline;
  const file = supplierConfigFile(settings.configDir, supplier);
  const existed = existsSync(file);
  if (existed && !opts.force) {
    throw new UsageError(
      `supplier ${supplier} already has a config file ${file} (--force overwrites it)`,
    );
  }
  await checkSupplierJobName(pipeline, supplier);
  const plan = await planSupplierJob(pipeline, supplier, opts);
  await writeWhole(file, supplierConfigTemplate(supplier, dq));
  const inbox = await prepareInbox(settings, supplier);
  const jobLine = await storeSupplierJob(pipeline, plan, opts);
  const { schedule, timezone } = plan.spec;
  const when = schedule ? `schedule "${schedule}" ${timezone}` : "no schedule";

  services.print(`Supplier ${supplier} is set up.`);
  services.print(
    `  config: ${file}${existed ? " (overwritten)" : ""}  (min_fact_count ${dq.min_fact_count}, max_bad_ratio ${dq.max_bad_ratio}, allow_empty_snapshot ${dq.allow_empty_snapshot}; make key and columns match the supplier's files)`,
  );
  services.print(`  inbox:  ${inbox}  (drop full-snapshot CSV or XLSX files here)`);
  services.print(`  job:    ${jobLine} (snapshots.ingest, ${when})`);
  services.print(`Run it:   tidemark snapshots run ${supplier}`);
  services.print(`Then:     tidemark snapshots status ${supplier}`);
}
