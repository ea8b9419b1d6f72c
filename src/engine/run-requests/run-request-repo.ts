import type { Kysely } from "kysely";
import { type Database, typed } from "../../infra/db/open-database.ts";
import type { QueuedRun } from "./queued-run.ts";

/** `tm_run_requests` (engine migration 0003): queued runs by the run id promised to the caller. */
export interface RunRequestsTable {
  run_id: string;
  job_name: string;
  queue: string;
  message_id: string;
  requested_by: string;
  requested_at: string;
  dry_run: number;
  run_limit: number | null;
  /** Set when a worker's stop interrupted the run: a redelivery may then run it again. */
  interrupted_at: string | null;
  /** Set when a redelivery ran the job again because the run was abandoned (at most once). */
  retried_at: string | null;
}

interface Tables {
  tm_run_requests: RunRequestsTable;
}

/** Reads and writes `tm_run_requests`. */
export class RunRequestRepo {
  readonly #db: Kysely<Tables>;

  constructor(db: Database) {
    this.#db = typed<Tables>(db);
  }

  /** Records a request that was queued. */
  async insert(r: QueuedRun): Promise<void> {
    await this.#db
      .insertInto("tm_run_requests")
      .values({
        run_id: r.runId,
        job_name: r.jobName,
        queue: r.queue,
        message_id: r.messageId,
        requested_by: r.requestedBy,
        requested_at: r.requestedAt,
        dry_run: r.dryRun ? 1 : 0,
        run_limit: r.limit,
        interrupted_at: null,
        retried_at: null,
      })
      .execute();
  }

  /** Notes that a worker's stop interrupted the request's run (it may run again once). */
  async markInterrupted(runId: string, at: string): Promise<void> {
    await this.#db
      .updateTable("tm_run_requests")
      .set({ interrupted_at: at })
      .where("run_id", "=", runId)
      .execute();
  }

  /** True (and the mark cleared) when the request's run was interrupted by a worker's stop. */
  async takeInterrupted(runId: string): Promise<boolean> {
    const res = await this.#db
      .updateTable("tm_run_requests")
      .set({ interrupted_at: null })
      .where("run_id", "=", runId)
      .where("interrupted_at", "is not", null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /**
   * True for the one delivery that may run the request again after its run was abandoned (the
   * worker died mid-run); false for every later one, and for a run not requested via the queue.
   */
  async takeRetry(runId: string, at: string): Promise<boolean> {
    const res = await this.#db
      .updateTable("tm_run_requests")
      .set({ retried_at: at })
      .where("run_id", "=", runId)
      .where("retried_at", "is", null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** The request behind a run id, if the run was requested through the queue. */
  async get(runId: string): Promise<QueuedRun | undefined> {
    const row = await this.#db
      .selectFrom("tm_run_requests")
      .selectAll()
      .where("run_id", "=", runId)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      runId: row.run_id,
      jobName: row.job_name,
      queue: row.queue,
      messageId: row.message_id,
      requestedBy: row.requested_by,
      requestedAt: row.requested_at,
      dryRun: row.dry_run === 1,
      limit: row.run_limit,
    };
  }
}
