import { readdirSync } from "node:fs";
import {
  AlreadyRunningError,
  type CliServices,
  ExitCode,
  type PipelineServices,
  TidemarkError,
  UsageError,
} from "tidemark";
import { interruptSignal } from "tidemark/kit";
import { supplierLeaseKey } from "../params.ts";
import type { SnapshotSettings } from "../settings.ts";
import { describeResult } from "../stages/ingest/describe-result.ts";
import { planIngestion } from "../stages/ingest/plan-run.ts";
import type { IngestResult } from "../stages/ingest/types.ts";
import { checkSupplierName, isSupplierName } from "../stages/intake/layout/supplier-name.ts";
import { requireKnownSupplier } from "../stages/intake/suppliers/known-supplier.ts";
import {
  ensureSupplierJob,
  findSupplierJob,
  supplierJobName,
} from "../stages/intake/suppliers/supplier-job.ts";
import { dropEarlyThreads, warmBeforeRun } from "../stages/parse/early-threads.ts";
import { openStorage } from "../stages/publish/storage/open-storage.ts";

/** One supplier's outcome in `snapshots run`, with the stored job that ran. */
type Outcome = { job: string } & (
  | { supplier: string; kind: "result"; result: IngestResult }
  | { supplier: string; kind: "locked"; holder: string | null }
  | { supplier: string; kind: "error"; error: string; engine_run_id: string | null }
);

function exitCodeOf(o: Outcome): number {
  if (o.kind === "locked") return ExitCode.alreadyRunning;
  if (o.kind === "error") return ExitCode.jobFailed;
  if (o.result.status !== "FAIL") return ExitCode.ok;
  return o.result.reason_code?.startsWith("CONFIG_") ? ExitCode.usage : ExitCode.jobFailed;
}

/** A supplier's outcome in a few words, with its reason code: `gx: FAIL FILE_UNREADABLE`. */
function outcomeText(o: Outcome): string {
  if (o.kind === "locked") return `${o.supplier}: locked by another run`;
  if (o.kind === "error") return `${o.supplier}: error: ${o.error}`;
  const r = o.result;
  const config = r.reason_code?.startsWith("CONFIG_") ? " (supplier config)" : "";
  return r.status === "FAIL"
    ? `${o.supplier}: FAIL ${r.reason_code}${config}`
    : `${o.supplier}: ${r.status}`;
}

/** Suppliers `run --all` processes: those with a config file or an inbox folder. */
async function allSuppliers(configDir: string, inboxes: string[]): Promise<string[]> {
  let configs: string[] = [];
  try {
    configs = readdirSync(configDir)
      .filter((f) => /\.ya?ml$/.test(f))
      .map((f) => f.replace(/\.ya?ml$/, ""));
  } catch {
    configs = [];
  }
  return [...new Set([...configs, ...inboxes])].filter(isSupplierName).sort();
}

/** The pipeline's services, as the snapshots commands get them. */
type Services = PipelineServices<SnapshotSettings>;

/** One supplier's engine run of its stored job (added when it has none). */
async function runSupplier(
  services: Services,
  s: string,
  signal: AbortSignal,
  added: string[],
): Promise<Outcome> {
  // Before anything of the run: its parse threads start while the engine opens it.
  await warmBeforeRun({
    configDir: services.settings.configDir,
    storage: openStorage(services.settings, services.blobs),
    supplier: s,
    workers: services.settings.workers,
    now: services.clock.now(),
  });
  try {
    return await runSupplierJob(services, s, signal, added);
  } finally {
    await dropEarlyThreads(s);
  }
}

async function runSupplierJob(
  services: Services,
  s: string,
  signal: AbortSignal,
  added: string[],
): Promise<Outcome> {
  const job = await ensureSupplierJob(services, s);
  if (job.added) added.push(job.name);
  try {
    const report = await services.runJob({
      job: job.name,
      type: "snapshots.ingest",
      params: job.params,
      signal,
    });
    const result = report.summary as unknown as IngestResult;
    if (typeof result.status === "string" && result.run_id) {
      return { job: job.name, supplier: s, kind: "result", result };
    }
    const error = report.error ?? "unknown error";
    return { job: job.name, supplier: s, kind: "error", error, engine_run_id: report.runId };
  } catch (err) {
    if (!(err instanceof AlreadyRunningError)) throw err;
    return { job: job.name, supplier: s, kind: "locked", holder: err.holder ?? null };
  }
}

/**
 * A dry run of one supplier: read only, no job added, no run recorded, nothing moved. While a
 * live run holds the supplier's lock, the answer is what a real run would get (locked): a plan
 * read mid-run would show that run's half-written state as an interrupted run to recover.
 */
async function planSupplier(services: Services, s: string, added: string[]): Promise<Outcome> {
  const job = (await findSupplierJob(services, s))?.name;
  const lease = await services.leases.get(supplierLeaseKey(s));
  if (lease && lease.expires_at > services.clock.now().toISOString()) {
    return { job: job ?? supplierJobName(s), supplier: s, kind: "locked", holder: lease.holder };
  }
  if (!job) added.push(supplierJobName(s));
  const deps = { ...services, storage: openStorage(services.settings, services.blobs) };
  const result = await planIngestion(deps, s, "");
  return { job: job ?? supplierJobName(s), supplier: s, kind: "result", result };
}

/**
 * `tidemark snapshots run <supplier> | --all`: each supplier is an engine run of its stored
 * `snapshots.ingest` job (`snapshots.<supplier>`, added when the supplier has none), recorded in
 * tm_runs under the one run id the manifest carries, holding the lease `snapshots:<supplier>`.
 * Exit 0 PASS or nothing to do, 1 FAIL, 2 usage/config (incl. a FAIL for a missing or invalid
 * supplier config), 3 another run holds the supplier's lock. `--dry-run` writes nothing.
 */
export async function runCommand(
  services: CliServices,
  supplier: string | undefined,
  opts: { all?: boolean; dryRun?: boolean; json?: boolean },
): Promise<void> {
  if (!supplier === !opts.all) throw new UsageError("give either a supplier name or --all");
  if (supplier) checkSupplierName(supplier);
  const pipeline = await services.services<SnapshotSettings>();
  if (supplier) await requireKnownSupplier(pipeline, supplier);
  const { settings } = pipeline;
  const suppliers = supplier
    ? [supplier]
    : await allSuppliers(
        settings.configDir,
        await openStorage(settings, pipeline.blobs).listDirs("inbox"),
      );
  const outcomes: Outcome[] = [];
  const added: string[] = [];
  const interrupt = interruptSignal();
  try {
    for (const s of suppliers) {
      outcomes.push(
        opts.dryRun
          ? await planSupplier(pipeline, s, added)
          : await runSupplier(pipeline, s, interrupt.signal, added),
      );
      if (interrupt.signal.aborted) break;
    }
  } finally {
    interrupt.dispose();
  }
  if (opts.json) services.printJson(supplier ? outcomes[0] : outcomes);
  else {
    if (outcomes.length === 0)
      services.print("No supplier configured (no config file, no inbox folder).");
    for (const o of outcomes) {
      if (o.kind === "result") for (const line of describeResult(o.result)) services.print(line);
      else if (o.kind === "locked") {
        services.print(
          `${o.supplier}: locked (${supplierLeaseKey(o.supplier)} held by ${o.holder ?? "another run"})`,
        );
      } else services.print(`${o.supplier}: error: ${o.error} (run ${o.engine_run_id})`);
    }
    // Said last: the first line stays the outcome.
    for (const name of added) {
      services.print(
        opts.dryRun
          ? `A real run would add job ${name} (snapshots.ingest, no schedule) first`
          : `Added job ${name} (snapshots.ingest, no schedule) for this run: tidemark job show ${name}`,
      );
    }
  }
  const codes = outcomes.map(exitCodeOf);
  const code = codes.includes(1) ? 1 : codes.includes(2) ? 2 : codes.includes(3) ? 3 : 0;
  if (code !== 0) {
    // Each supplier with its own outcome: the exit code says only the worst of them.
    const bad = outcomes.filter((o) => exitCodeOf(o) !== 0).map(outcomeText);
    throw new TidemarkError(bad.join("; "), code);
  }
}
