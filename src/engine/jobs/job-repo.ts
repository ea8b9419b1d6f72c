import type { Kysely } from "kysely";
import { type Database, typed } from "../../infra/db/open-database.ts";
import type { EngineTables, JobsTable } from "../engine-tables.ts";
import type { StoredJob } from "../registry/stored-jobs.ts";

/** A job as the engine reports it (the contract's StoredJob). */
export type JobRecord = StoredJob;

function toRecord(row: JobsTable): JobRecord {
  return {
    name: row.name,
    type: row.type,
    params: JSON.parse(row.params),
    schedule: row.schedule,
    timezone: row.timezone,
    enabled: row.enabled === 1,
    ...(row.jitter_seconds > 0 ? { jitter: row.jitter_seconds } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toRow(job: JobRecord): JobsTable {
  return {
    name: job.name,
    type: job.type,
    params: JSON.stringify(job.params),
    schedule: job.schedule,
    timezone: job.timezone,
    enabled: job.enabled ? 1 : 0,
    jitter_seconds: job.jitter ?? 0,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
  };
}

/** Reads and writes `tm_jobs`; validation lives in JobService. */
export class JobRepo {
  readonly #database: Database;
  readonly #db: Kysely<EngineTables>;

  /** `trx` scopes the repo to a transaction (see transaction()). */
  constructor(db: Database, trx?: Kysely<EngineTables>) {
    this.#database = db;
    this.#db = trx ?? typed<EngineTables>(db);
  }

  /** All jobs by name. */
  async list(): Promise<JobRecord[]> {
    const rows = await this.#db.selectFrom("tm_jobs").selectAll().orderBy("name").execute();
    return rows.map(toRecord);
  }

  /** One job or undefined. */
  async get(name: string): Promise<JobRecord | undefined> {
    const row = await this.#db
      .selectFrom("tm_jobs")
      .selectAll()
      .where("name", "=", name)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  /** Inserts a new job; fails on a duplicate name. */
  async insert(job: JobRecord): Promise<void> {
    await this.#db.insertInto("tm_jobs").values(toRow(job)).execute();
  }

  /** Replaces every field but the name and creation time. */
  async update(job: JobRecord): Promise<void> {
    const { name, created_at: _created, ...rest } = toRow(job);
    await this.#db.updateTable("tm_jobs").set(rest).where("name", "=", name).execute();
  }

  /** Deletes; returns whether a row was removed. */
  async delete(name: string): Promise<boolean> {
    const res = await this.#db.deleteFrom("tm_jobs").where("name", "=", name).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /** Runs fn in one transaction (used by import so a bad file writes nothing). */
  async transaction<T>(fn: (repo: JobRepo) => Promise<T>): Promise<T> {
    return this.#db.transaction().execute(async (trx) => {
      return fn(new JobRepo(this.#database, trx));
    });
  }
}
