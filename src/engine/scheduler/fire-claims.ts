import { hostname } from "node:os";
import type { Kysely } from "kysely";
import { type Database, typed } from "../../infra/db/open-database.ts";
import { isoTimestamp } from "../clock/clock.ts";

/** `tm_schedule_fires`: the latest occurrence fired per job. */
export interface ScheduleFiresTable {
  job_name: string;
  occurrence: string;
  fired_at: string;
  host: string;
  pid: number;
}

interface Tables {
  tm_schedule_fires: ScheduleFiresTable;
}

/**
 * Claims occurrences so that several schedulers on one database (several `serve` processes)
 * fire each occurrence once: a claim moves the job's row forward only if the occurrence is
 * later than the one stored, in one atomic statement on both dialects.
 */
export class FireClaims {
  readonly #db: Kysely<Tables>;

  constructor(db: Database) {
    this.#db = typed<Tables>(db);
  }

  /** True when this caller is the first to claim `occurrence` (or a later one) of the job. */
  async claim(jobName: string, occurrence: Date, now: Date): Promise<boolean> {
    const occ = isoTimestamp(occurrence);
    const row = {
      occurrence: occ,
      fired_at: isoTimestamp(now),
      host: hostname(),
      pid: process.pid,
    };
    const res = await this.#db
      .insertInto("tm_schedule_fires")
      .values({ job_name: jobName, ...row })
      .onConflict((oc) =>
        oc.column("job_name").doUpdateSet(row).where("tm_schedule_fires.occurrence", "<", occ),
      )
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  /** The latest occurrence fired for the job, if any. */
  async last(jobName: string): Promise<Date | undefined> {
    const row = await this.#db
      .selectFrom("tm_schedule_fires")
      .select("occurrence")
      .where("job_name", "=", jobName)
      .executeTakeFirst();
    return row ? new Date(row.occurrence) : undefined;
  }
}
