import { type Kysely, type Selectable, sql, type Transaction } from "kysely";
import { type Database, typed } from "../../infra/db/open-database.ts";
import { LeaseLostError } from "../../infra/errors.ts";
import { type Clock, isoTimestamp } from "../clock/clock.ts";
import type { EngineTables, LeasesTable } from "../engine-tables.ts";
import {
  formatOwner,
  isGoneHere,
  type ProcessOwner,
  parseOwner,
  thisProcess,
} from "./process-owner.ts";

/** A held lease. */
export interface Lease {
  key: string;
  holder: string;
  expiresAt: string;
  /** Fencing token: grows on every take-over of the key; fenced commits check it. */
  token: number;
  /** Set when the lease was taken from a holder whose process had died on this machine. */
  tookOverFrom?: { holder: string; owner: ProcessOwner };
}

/**
 * Exclusive, expiring locks on any key, stored in `tm_leases`. Acquisition is one atomic
 * upsert (`insert … on conflict do update … where expired`), so of two contenders exactly one
 * wins on both SQLite and Postgres; an expired lease is taken over the same way. A lease whose
 * owning process is gone from this machine is taken over at once (a compare-and-set on its
 * holder), so a killed run does not block the next one for a whole TTL.
 */
export class LeaseStore {
  readonly #db: Kysely<EngineTables>;
  readonly #owner: string;

  constructor(
    db: Database,
    readonly clock: Clock,
    /** Injectable for tests: the process this store acquires for, and how to probe a pid. */
    private readonly self: { owner: ProcessOwner; alive?: (pid: number) => boolean } = {
      owner: thisProcess(),
    },
  ) {
    this.#db = typed<EngineTables>(db);
    this.#owner = formatOwner(self.owner);
  }

  /** Takes the lease for ttlMs, or returns undefined when someone else holds it unexpired. */
  async tryAcquire(key: string, holder: string, ttlMs: number): Promise<Lease | undefined> {
    const now = this.clock.now();
    const nowIso = isoTimestamp(now);
    const expiresAt = isoTimestamp(new Date(now.getTime() + ttlMs));
    const fresh = {
      holder,
      owner: this.#owner,
      acquired_at: nowIso,
      heartbeat_at: nowIso,
      expires_at: expiresAt,
    };
    const row = await this.#db
      .insertInto("tm_leases")
      .values({ key, ...fresh })
      .onConflict((oc) =>
        oc
          .column("key")
          .doUpdateSet({ ...fresh, token: sql<number>`tm_leases.token + 1` })
          .where((eb) =>
            eb.or([eb("tm_leases.expires_at", "<=", nowIso), eb("tm_leases.holder", "=", holder)]),
          ),
      )
      .returning(["key", "holder", "expires_at", "token"])
      .executeTakeFirst();
    if (row && row.holder === holder) {
      return { key: row.key, holder: row.holder, expiresAt: row.expires_at, token: row.token };
    }
    return this.#takeOverFromDead(key, fresh);
  }

  /** Takes a lease whose owner died on this machine; undefined if it is alive or elsewhere. */
  async #takeOverFromDead(
    key: string,
    fresh: Omit<LeasesTable, "key" | "token">,
  ): Promise<Lease | undefined> {
    const current = await this.get(key);
    const owner = parseOwner(current?.owner);
    if (!current || !owner || !isGoneHere(owner, this.self.owner, this.self.alive)) {
      return undefined;
    }
    const row = await this.#db
      .updateTable("tm_leases")
      .set({ ...fresh, token: sql<number>`token + 1` })
      .where("key", "=", key)
      .where("holder", "=", current.holder)
      .returning("token")
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      key,
      holder: fresh.holder,
      expiresAt: fresh.expires_at,
      token: row.token,
      tookOverFrom: { holder: current.holder, owner },
    };
  }

  /** Extends a held lease; false when it was lost (expired and taken, or released). */
  async renew(key: string, holder: string, ttlMs: number): Promise<boolean> {
    const now = this.clock.now();
    const res = await this.#db
      .updateTable("tm_leases")
      .set({
        heartbeat_at: isoTimestamp(now),
        expires_at: isoTimestamp(new Date(now.getTime() + ttlMs)),
      })
      .where("key", "=", key)
      .where("holder", "=", holder)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /**
   * Runs `effect` in a transaction that first checks — by renewing it, which locks the lease
   * row (Postgres) or the database (SQLite) until the commit — that `lease` is still held by
   * its holder with its fencing token. Lost: LeaseLostError, and `effect` never runs. While
   * `effect` runs nobody can take the lease over, so effects outside the database made inside
   * it (a symlink switch, a pointer object) are fenced too.
   */
  async fencedCommit<DB, T>(
    lease: Pick<Lease, "key" | "holder" | "token">,
    ttlMs: number,
    effect: (tx: Transaction<DB>) => Promise<T>,
  ): Promise<T> {
    return this.#db.transaction().execute(async (tx) => {
      const now = this.clock.now();
      const res = await tx
        .updateTable("tm_leases")
        .set({
          heartbeat_at: isoTimestamp(now),
          expires_at: isoTimestamp(new Date(now.getTime() + ttlMs)),
        })
        .where("key", "=", lease.key)
        .where("holder", "=", lease.holder)
        .where("token", "=", lease.token)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw new LeaseLostError(lease.key, lease.holder);
      return effect(tx as unknown as Transaction<DB>);
    });
  }

  /** Gives the lease up if this holder still has it. */
  async release(key: string, holder: string): Promise<void> {
    await this.#db
      .deleteFrom("tm_leases")
      .where("key", "=", key)
      .where("holder", "=", holder)
      .execute();
  }

  /** The current row for a key, expired or not. */
  async get(key: string): Promise<Selectable<LeasesTable> | undefined> {
    return this.#db.selectFrom("tm_leases").selectAll().where("key", "=", key).executeTakeFirst();
  }

  /** True when some holder has the key and its lease has not expired. */
  async isHeld(key: string): Promise<boolean> {
    const row = await this.get(key);
    return row !== undefined && row.expires_at > isoTimestamp(this.clock.now());
  }
}
