import type { Kysely } from "kysely";
import { type Database, typed } from "../../infra/db/open-database.ts";
import type { Session } from "./session.ts";
import type { UiTables } from "./ui-tables.ts";

/**
 * Sessions signed out before their expiry (`tm_ui_revoked_sessions`). Kept in the database, not
 * in memory, so a cookie signed out through one `serve` process is refused by every other one.
 */
export class RevokedSessions {
  // Typed on use: an app built over a runtime without a database (API-only tests) never asks.
  readonly #database: Database;

  constructor(db: Database) {
    this.#database = db;
  }

  get #db(): Kysely<UiTables> {
    return typed<UiTables>(this.#database);
  }

  /** Records the session as signed out, and forgets sessions that have expired anyway. */
  async revoke(session: Session, nowSeconds: number): Promise<void> {
    await this.#db
      .insertInto("tm_ui_revoked_sessions")
      .values({ nonce: session.nonce, expires_at: isoSeconds(session.exp) })
      .onConflict((oc) => oc.column("nonce").doNothing())
      .execute();
    // Pruned here rather than by a timer: sign-outs are rare and every process signs some out.
    await this.#db
      .deleteFrom("tm_ui_revoked_sessions")
      .where("expires_at", "<", isoSeconds(nowSeconds))
      .execute();
  }

  /** True when the session was signed out. A database error throws: it never means "not revoked". */
  async isRevoked(session: Session): Promise<boolean> {
    const row = await this.#db
      .selectFrom("tm_ui_revoked_sessions")
      .select("nonce")
      .where("nonce", "=", session.nonce)
      .executeTakeFirst();
    return row !== undefined;
  }
}

function isoSeconds(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString();
}
