import type { Kysely } from "kysely";
import { type Database, typed } from "../../infra/db/open-database.ts";

/** `tm_idempotency_keys` (engine migration 0011): HTTP run requests by their Idempotency-Key. */
export interface IdempotencyKeysTable {
  idempotency_key: string;
  /** The job and options the key was first used with (see requestRunOnce). */
  fingerprint: string;
  /** The run id the first request promised. */
  run_id: string;
  created_at: string;
}

interface Tables {
  tm_idempotency_keys: IdempotencyKeysTable;
}

/** One key's record. */
export interface IdempotencyKeyRecord {
  key: string;
  fingerprint: string;
  runId: string;
  createdAt: string;
}

/** Reads and writes `tm_idempotency_keys`. */
export class IdempotencyKeyRepo {
  readonly #db: Kysely<Tables>;

  constructor(db: Database) {
    this.#db = typed<Tables>(db);
  }

  /** Records the key for runId; false when the key is already recorded (nothing changed). */
  async claim(r: IdempotencyKeyRecord): Promise<boolean> {
    const res = await this.#db
      .insertInto("tm_idempotency_keys")
      .values({
        idempotency_key: r.key,
        fingerprint: r.fingerprint,
        run_id: r.runId,
        created_at: r.createdAt,
      })
      .onConflict((oc) => oc.column("idempotency_key").doNothing())
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** The key's record, if any. */
  async get(key: string): Promise<IdempotencyKeyRecord | undefined> {
    const row = await this.#db
      .selectFrom("tm_idempotency_keys")
      .selectAll()
      .where("idempotency_key", "=", key)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      key: row.idempotency_key,
      fingerprint: row.fingerprint,
      runId: row.run_id,
      createdAt: String(row.created_at),
    };
  }

  /** Moves the key from `fromRunId` to `to` (one caller wins a race); true when it moved. */
  async takeOver(key: string, fromRunId: string, to: { runId: string; at: string }) {
    const res = await this.#db
      .updateTable("tm_idempotency_keys")
      .set({ run_id: to.runId, created_at: to.at })
      .where("idempotency_key", "=", key)
      .where("run_id", "=", fromRunId)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Forgets the key if it still names runId (its request could not be queued). */
  async release(key: string, runId: string): Promise<void> {
    await this.#db
      .deleteFrom("tm_idempotency_keys")
      .where("idempotency_key", "=", key)
      .where("run_id", "=", runId)
      .execute();
  }

  /** Forgets every key recorded before `before` (ISO time). */
  async expire(before: string): Promise<void> {
    await this.#db.deleteFrom("tm_idempotency_keys").where("created_at", "<", before).execute();
  }
}
