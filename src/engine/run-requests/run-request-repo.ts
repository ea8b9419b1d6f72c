import type { Kysely } from "kysely";
import { type Database, typed } from "../../infra/db/open-database.ts";

/** `tm_run_requests`: runs requested over HTTP, by the run id promised to the caller. */
export interface RunRequestsTable {
  run_id: string;
  job_name: string;
  queue: string;
  message_id: string;
  requested_by: string;
  requested_at: string;
  dry_run: number;
  run_limit: number | null;
}

interface Tables {
  tm_run_requests: RunRequestsTable;
}

/** A run request as recorded. */
export interface RunRequestRecord {
  runId: string;
  jobName: string;
  queue: string;
  messageId: string;
  requestedBy: string;
  requestedAt: string;
  dryRun: boolean;
  limit: number | null;
}

/** Reads and writes `tm_run_requests`. */
export class RunRequestRepo {
  readonly #db: Kysely<Tables>;

  constructor(db: Database) {
    this.#db = typed<Tables>(db);
  }

  /** Records a request that was queued. */
  async insert(r: RunRequestRecord): Promise<void> {
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
      })
      .execute();
  }

  /** The request behind a run id, if it came through the API. */
  async get(runId: string): Promise<RunRequestRecord | undefined> {
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
