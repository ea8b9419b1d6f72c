import { type StoredJobs, UsageError } from "tidemark";

/** The job type that ingests a supplier. */
const INGEST_TYPE = "snapshots.ingest";

/** The job `supplier add` and `snapshots run` create for a supplier: `snapshots.<supplier>`. */
export const supplierJobName = (supplier: string) => `snapshots.${supplier}`;

/** A stored job the snapshots commands run for a supplier. */
export interface SupplierJob {
  name: string;
  params: unknown;
  /** True when this call added it. */
  added: boolean;
}

interface StoredJob {
  name: string;
  type: string;
  params: unknown;
}

/** What the supplier's job lookups need: the pipeline's services or a job's context fit. */
interface JobSources {
  jobs: StoredJobs;
}

function ingests(job: StoredJob, supplier: string): boolean {
  const params = job.params as { supplier?: unknown } | null;
  return job.type === INGEST_TYPE && params?.supplier === supplier;
}

/** The stored job ingesting the supplier: `snapshots.<s>` if it does, else the first by name. */
export async function findSupplierJob(
  services: JobSources,
  supplier: string,
): Promise<StoredJob | undefined> {
  const jobs = await services.jobs.list();
  const own = jobs.find((j) => j.name === supplierJobName(supplier));
  if (own && ingests(own, supplier)) return own;
  return jobs.filter((j) => ingests(j, supplier)).sort((a, b) => a.name.localeCompare(b.name))[0];
}

/** Refuses (exit 2) when `snapshots.<s>` exists as another job: it cannot be added for s. */
export async function checkSupplierJobName(services: JobSources, supplier: string): Promise<void> {
  const name = supplierJobName(supplier);
  const existing = await services.jobs.get(name);
  if (existing && !ingests(existing, supplier)) {
    throw new UsageError(
      `job ${name} exists but does not ingest supplier ${supplier} (type ${existing.type}); rename or remove it (tidemark job rm ${name} --yes)`,
    );
  }
}

/**
 * The supplier's stored job, adding `snapshots.<s>` (no schedule) when there is none, so every
 * run belongs to a job `tidemark job show` knows. A concurrent add of the same job is fine.
 */
export async function ensureSupplierJob(
  services: JobSources,
  supplier: string,
): Promise<SupplierJob> {
  const found = await findSupplierJob(services, supplier);
  if (found) return { name: found.name, params: found.params, added: false };
  await checkSupplierJobName(services, supplier);
  const spec = {
    name: supplierJobName(supplier),
    type: INGEST_TYPE,
    params: { supplier },
    schedule: null,
    timezone: "UTC",
    enabled: true,
  };
  try {
    await services.jobs.add(spec);
  } catch (err) {
    // Another process may have added it a moment ago: use theirs.
    const raced = await findSupplierJob(services, supplier);
    if (raced) return { name: raced.name, params: raced.params, added: false };
    throw err;
  }
  return { name: spec.name, params: spec.params, added: true };
}
