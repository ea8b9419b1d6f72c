import type { Kysely, UpdateQueryBuilder, UpdateResult } from "kysely";
import { type Database, typed } from "../../infra/db/open-database.ts";
import { redactSecrets } from "../../infra/logging/redact.ts";
import type { EngineTables, RunStatus, RunsTable } from "../engine-tables.ts";
import type { RunEvents } from "../notify/run-events.ts";

/** A run as the engine reports it (JSON parsed, flags as booleans). */
export interface RunRecord {
  runId: string;
  jobName: string;
  jobType: string;
  status: RunStatus;
  startedAt: string;
  finishedAt: string | null;
  summary: Record<string, unknown> | null;
  error: string | null;
  dryRun: boolean;
  leaseKey: string;
  host: string;
  pid: number;
  /** The run's latest reported progress; absent when it reported none. */
  progress?: RunProgress;
  /** The params it ran with (validated, defaults filled); absent for runs recorded before 0012. */
  params?: Record<string, unknown>;
}

/** A run's latest progress, as stored in `tm_runs.progress`. */
export interface RunProgress {
  label: string;
  done: number;
  total: number | null;
  figures: Record<string, number>;
  updated_at: string;
}

/**
 * A JSON column's value; one that does not parse (edited by hand, cut by a full disk) is
 * reported in place instead of failing every listing that includes its row.
 */
function parseColumn<T>(text: string, column: string): T | { unreadable: string } {
  try {
    return JSON.parse(text) as T;
  } catch {
    return { unreadable: `tm_runs.${column} is not valid JSON` };
  }
}

/** Params larger than this are not copied into every run row (and every run listing). */
const MAX_STORED_PARAMS_BYTES = 16 * 1024;

/**
 * The params as stored with a run: their JSON with secret fields masked (the run's page and the
 * API show them), or a note of their size when too large (measured first: no copy of a huge list).
 */
function storedParams(params: Record<string, unknown>): string {
  const bytes = Buffer.byteLength(JSON.stringify(params));
  if (bytes <= MAX_STORED_PARAMS_BYTES) return JSON.stringify(redactSecrets(params));
  const size = bytes.toLocaleString("en");
  return JSON.stringify({ omitted: `${size} bytes of params, too large to keep with the run` });
}

function toRecord(row: RunsTable): RunRecord {
  const progress = row.progress ? parseColumn<RunProgress>(row.progress, "progress") : undefined;
  const params = row.params
    ? parseColumn<Record<string, unknown>>(row.params, "params")
    : undefined;
  return {
    ...(progress && !("unreadable" in progress) ? { progress } : {}),
    ...(params ? { params } : {}),
    runId: row.run_id,
    jobName: row.job_name,
    jobType: row.job_type,
    status: row.status,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    summary: row.summary === null ? null : parseColumn(row.summary, "summary"),
    error: row.error,
    dryRun: row.dry_run === 1,
    leaseKey: row.lease_key,
    host: row.host,
    pid: row.pid,
  };
}

/** Filters for listing runs. */
export interface RunFilter {
  jobName?: string;
  status?: RunStatus;
  /** Only runs started at or after this time (ISO). */
  since?: string;
  limit?: number;
  /** Skips this many of the newest matching runs (paging). */
  offset?: number;
}

/**
 * Why a sweep abandons a run whose lease expired unrenewed. Its process may be dead or only
 * stalled (paused, frozen); a stalled one that wakes records its own end over this.
 */
export const LEASE_EXPIRED_ERROR =
  "lease lost: it expired without renewal (the process died or stalled)";

/** Reads and writes `tm_runs`. */
export class RunRepo {
  readonly #db: Kysely<EngineTables>;

  /** `events` hears about runs markAbandoned settles (metrics, failure webhook). */
  constructor(
    db: Database,
    private readonly events?: RunEvents,
  ) {
    this.#db = typed<EngineTables>(db);
  }

  /** Records a run that has started. */
  async insertStarted(run: Omit<RunRecord, "finishedAt" | "summary" | "error" | "status">) {
    await this.#db
      .insertInto("tm_runs")
      .values({
        run_id: run.runId,
        job_name: run.jobName,
        job_type: run.jobType,
        status: "running",
        started_at: run.startedAt,
        finished_at: null,
        summary: null,
        error: null,
        dry_run: run.dryRun ? 1 : 0,
        lease_key: run.leaseKey,
        host: run.host,
        pid: run.pid,
        ...(run.params === undefined ? {} : { params: storedParams(run.params) }),
      })
      .execute();
  }

  /**
   * Records a run's end. Only a `running` run is finished: an abandoned one stays abandoned, but
   * a run that was marked abandoned while it was alive (paused past its lease, then woken) and
   * now ends `abandoned` itself replaces the sweep's guess with its own account ("lease lost").
   */
  async finish(
    runId: string,
    end: { status: RunStatus; finishedAt: string; summary: unknown; error: string | null },
  ): Promise<void> {
    const ending: RunStatus[] = end.status === "abandoned" ? ["running", "abandoned"] : ["running"];
    await this.#db
      .updateTable("tm_runs")
      .set({
        status: end.status,
        finished_at: end.finishedAt,
        summary: end.summary === undefined ? null : JSON.stringify(end.summary),
        error: end.error,
      })
      .where("run_id", "=", runId)
      .where("status", "in", ending)
      .execute();
  }

  /** Stores a `running` run's latest progress; a run that has ended is left as it is. */
  async writeProgress(runId: string, progress: RunProgress): Promise<void> {
    await this.#db
      .updateTable("tm_runs")
      .set({ progress: JSON.stringify(progress) })
      .where("run_id", "=", runId)
      .where("status", "=", "running")
      .execute();
  }

  /** Records a run that never started work (e.g. skipped because another run holds the lease). */
  async insertFinished(run: RunRecord): Promise<void> {
    await this.#db
      .insertInto("tm_runs")
      .values({
        run_id: run.runId,
        job_name: run.jobName,
        job_type: run.jobType,
        status: run.status,
        started_at: run.startedAt,
        finished_at: run.finishedAt,
        summary: run.summary === null ? null : JSON.stringify(run.summary),
        error: run.error,
        dry_run: run.dryRun ? 1 : 0,
        lease_key: run.leaseKey,
        host: run.host,
        pid: run.pid,
      })
      .execute();
  }

  /** One run, or undefined. */
  async get(runId: string): Promise<RunRecord | undefined> {
    const row = await this.#db
      .selectFrom("tm_runs")
      .selectAll()
      .where("run_id", "=", runId)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  /** Newest first. */
  async list(filter: RunFilter = {}): Promise<RunRecord[]> {
    let q = this.#db.selectFrom("tm_runs").selectAll();
    if (filter.jobName) q = q.where("job_name", "=", filter.jobName);
    if (filter.status) q = q.where("status", "=", filter.status);
    if (filter.since) q = q.where("started_at", ">=", filter.since);
    q = q
      .orderBy("started_at", "desc")
      .orderBy("run_id", "desc")
      .limit(filter.limit ?? 50);
    if (filter.offset) q = q.offset(filter.offset);
    const rows = await q.execute();
    return rows.map(toRecord);
  }

  /** Start time of the job's latest run that actually started work (not a skip), if any. */
  async lastStartedAt(jobName: string): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom("tm_runs")
      .select((eb) => eb.fn.max("started_at").as("last"))
      .where("job_name", "=", jobName)
      .executeTakeFirst();
    return row?.last ?? undefined;
  }

  /**
   * Marks `running` runs whose lease is gone or expired as `abandoned`: their process died or
   * stalled. Returns the run ids marked.
   */
  async markAbandoned(nowIso: string): Promise<string[]> {
    return this.#abandon(nowIso, LEASE_EXPIRED_ERROR, (q) =>
      q.where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("tm_leases")
              .select("tm_leases.key")
              .whereRef("tm_leases.key", "=", "tm_runs.lease_key")
              .whereRef("tm_leases.holder", "=", "tm_runs.run_id")
              .where("tm_leases.expires_at", ">", nowIso),
          ),
        ),
      ),
    );
  }

  /** Marks one `running` run `abandoned` because its process is known to be gone. */
  async markDead(runId: string, nowIso: string, error: string): Promise<boolean> {
    const marked = await this.#abandon(nowIso, error, (q) => q.where("run_id", "=", runId));
    return marked.length === 1;
  }

  /** Sets the `running` runs `where` selects to abandoned and tells `events`. */
  async #abandon(
    nowIso: string,
    error: string,
    where: (
      q: UpdateQueryBuilder<EngineTables, "tm_runs", "tm_runs", UpdateResult>,
    ) => UpdateQueryBuilder<EngineTables, "tm_runs", "tm_runs", UpdateResult>,
  ): Promise<string[]> {
    const rows = await where(
      this.#db
        .updateTable("tm_runs")
        .set({ status: "abandoned", finished_at: nowIso, error })
        .where("status", "=", "running"),
    )
      .returningAll()
      .execute();
    for (const row of rows) {
      const run = toRecord(row);
      this.events?.emitRunEnded({ ...run, finishedAt: run.finishedAt ?? nowIso });
    }
    return rows.map((r) => r.run_id);
  }
}
